import type { Rng } from '../random.js';
import { DAY, isoDate } from '../clock.js';

/** The three business scenarios of the spec; their call records differ in some fields. */
export type Scenario = 'debt' | 'telemarketing' | 'info-check';

/** A person on a calling list, as the simulator knows them. */
export interface Callee {
  name: string;
  gender: 'male' | 'female';
  number: string;
  caseId: string;
  platform: string;
  currency: string;
  borrowedDate: string;
  dueDate: string;
  borrowedAmount: string;
  totalOwingAmount: string;
}

interface Market {
  code: string;
  countryCode: string;
  /** National number: a fixed leading part, then random digits. */
  lead: string;
  digits: number;
  currency: string;
  platform: string;
  /** Outbound line numbers the robot calls from. */
  caller: string;
  amount: [number, number];
  names: { male: readonly string[]; female: readonly string[] };
}

/** Markets the seeded calling happens in: realistic E.164 numbers, currencies and names. */
export const MARKETS: readonly Market[] = [
  {
    code: 'ID',
    countryCode: '62',
    lead: '81',
    digits: 9,
    currency: 'IDR',
    platform: 'KreditCepat',
    caller: '+622150880',
    amount: [500_000, 8_000_000],
    names: {
      male: ['Budi Santoso', 'Agus Wijaya', 'Rizky Pratama', 'Hendra Gunawan'],
      female: ['Siti Rahmawati', 'Dewi Lestari', 'Putri Anggraini', 'Ayu Kartika'],
    },
  },
  {
    code: 'PH',
    countryCode: '63',
    lead: '917',
    digits: 7,
    currency: 'PHP',
    platform: 'PesoNow',
    caller: '+63288810',
    amount: [2_000, 40_000],
    names: {
      male: ['Juan Dela Cruz', 'Mark Reyes', 'Paolo Santos', 'Jerome Villanueva'],
      female: ['Maria Santos', 'Angelica Cruz', 'Kristine Bautista', 'Joy Mendoza'],
    },
  },
  {
    code: 'MX',
    countryCode: '52',
    lead: '155',
    digits: 8,
    currency: 'MXN',
    platform: 'PrestaYa',
    caller: '+52558990',
    amount: [1_500, 25_000],
    names: {
      male: ['José Hernández', 'Luis García', 'Carlos Martínez', 'Miguel Torres'],
      female: ['María López', 'Guadalupe Sánchez', 'Fernanda Ramírez', 'Sofía Flores'],
    },
  },
  {
    code: 'NG',
    countryCode: '234',
    lead: '803',
    digits: 7,
    currency: 'NGN',
    platform: 'NairaLend',
    caller: '+23412770',
    amount: [20_000, 400_000],
    names: {
      male: ['Chinedu Okafor', 'Emeka Nwosu', 'Tunde Adeyemi', 'Ibrahim Musa'],
      female: ['Ngozi Eze', 'Funmilayo Bello', 'Aisha Abubakar', 'Chioma Obi'],
    },
  },
];

/** A market by index, wrapping. */
export const market = (i: number): Market => MARKETS[i % MARKETS.length] as Market;

export function callerNumber(rng: Rng, m: Market): string {
  return m.caller + rng.digits(3);
}

/** A deterministic callee of market `m`, with a loan due around `now`. */
export function makeCallee(rng: Rng, m: Market, now: number): Callee {
  const gender = rng.next() < 0.5 ? 'male' : 'female';
  const borrowed = rng.int(m.amount[0] / 100, m.amount[1] / 100) * 100;
  const owing = Math.round(borrowed * (1 + rng.int(5, 35) / 100));
  const borrowedAt = now - rng.int(20, 90) * DAY;
  return {
    name: rng.pick(m.names[gender]),
    gender,
    number: `+${m.countryCode}${m.lead}${rng.digits(m.digits)}`,
    caseId: `${m.code}-${rng.digits(8)}`,
    platform: m.platform,
    currency: m.currency,
    borrowedDate: isoDate(borrowedAt),
    dueDate: isoDate(borrowedAt + 30 * DAY),
    borrowedAmount: borrowed.toFixed(2),
    totalOwingAmount: owing.toFixed(2),
  };
}

export const firstName = (c: Callee) => c.name.split(' ')[0] ?? c.name;
