import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Destination } from '../store/destination.js';
import { settleOldJournal, type OldStatePolicy } from '../store/old-state.js';
import type { Journals, Store } from '../store/store.js';
import { finishedUpload, uploadKey } from '../store/upload-journal.js';
import type { UploadEvent } from './events.js';
import type { Fingerprint } from './fingerprint.js';
import type { ReadOptions } from './pass-one.js';

/** The options of one upload (src/upload/upload.ts PreparedUpload.prepare). */
export interface UploadOptions extends ReadOptions {
  /** The file as the user named it (for messages). */
  file: string;
  /** Its absolute path. */
  path: string;
  workflowId: string;
  /** The run's store (src/store/store.ts): the upload's journal and lock. */
  store: Store;
  /**
   * The service and account the contacts go to: the journal is theirs alone. Absent only for a dry
   * run that knows no base URL or APPKey: it then plans the file as a first upload.
   */
  destination?: Destination;
  /** What to do with a journal of the same file and workflow an earlier callctl wrote without its destination. */
  oldState: OldStatePolicy;
  /** Where spool files go (the cache folder). */
  spoolDir: string;
  delimiter: string;
  keepEmpty: boolean;
  /** Entries per request, at most MAX_ENTRIES_PER_UPDATE (the command checks). */
  batchSize: number;
  /** Invalid rows that may be skipped; more than this and nothing is sent. */
  maxInvalid: number;
  /** Where to write every rejected row, when asked. */
  rejectsPath?: string;
  /** Ignore the journal: send every batch again. */
  restart: boolean;
  /** Send again the batches an earlier run left uncertain (with no caseid on every entry). */
  resendUncertain?: boolean;
  /** Waits between retries of an uncertain batch whose entries all carry caseid. */
  sleep?: (ms: number) => Promise<void>;
  /** Read, check and batch; take no lock, write no journal, spool nothing. */
  dryRun: boolean;
  signal?: AbortSignal;
  onEvent?: (event: UploadEvent) => void;
}

/** An upload's journal as a run holds it: its name, where it is, its spool and the lock's release. */
export interface TakenJournal {
  key: string;
  journals: Journals;
  journalPath: string;
  spool: string | undefined;
  destination: Destination;
  release: () => Promise<void>;
}

/**
 * The journal of this upload for its destination: named by workflow, content and destination;
 * locked (a file lock, and the shared store's when there is one); an earlier callctl's journal of
 * the same work settled as `oldState` says (a dry run only reads: such a journal stops it as it
 * would stop the upload); spools of killed runs removed.
 */
export async function takeJournal(
  o: UploadOptions,
  fp: Fingerprint,
  emit: (e: UploadEvent) => void,
): Promise<TakenJournal> {
  const destination = o.destination ?? {
    kind: 'cloud',
    text: '(not known: a dry run without base URL or APPKey)',
    id: 'unknown',
  };
  const key = `${uploadKey(o.workflowId, fp.sha256)}-${destination.id}`;
  const journals = await o.store.journals('upload');
  const journalPath = journals.where(key);
  let release: () => Promise<void> = async () => undefined;
  const spool = o.dryRun ? undefined : join(o.spoolDir, `${key}.${process.pid}.spool`);
  const header = () => ({
    type: 'start',
    version: 2,
    workflowId: o.workflowId,
    destination: destination.text,
    file: o.path,
    sha256: fp.sha256,
    bytes: fp.bytes,
    at: new Date().toISOString(),
  });
  const settle = (policy: OldStatePolicy) =>
    settleOldJournal(journals, {
      oldName: uploadKey(o.workflowId, fp.sha256),
      newName: key,
      policy,
      destination,
      what: `upload of ${o.file} to workflow ${o.workflowId}`,
      header,
    });
  if (o.dryRun) {
    // Read only: an earlier callctl's journal stops a dry run as it would stop the upload.
    if (o.oldState === 'stop' && !o.restart && o.destination) await settle('stop');
  } else {
    mkdirSync(o.spoolDir, { recursive: true, mode: 0o700 });
    await journals.prune(finishedUpload);
    release = await o.store.lock({
      name: `upload ${key}`,
      what: `upload of ${o.file} to workflow ${o.workflowId}`,
      file: join('uploads', `${key}.lock`),
      onStale: (owner, path) => emit({ type: 'stale-lock', pid: owner.pid, path }),
    });
    try {
      await settle(o.restart ? 'ignore' : o.oldState);
    } catch (error) {
      await release();
      throw error;
    }
    // Spools of runs that were killed (we hold the lock: nobody else uses them).
    for (const name of readdirSync(o.spoolDir))
      if (name.startsWith(`${key}.`) && name.includes('.spool')) rmSync(join(o.spoolDir, name), { force: true });
  }
  return { key, journals, journalPath, spool, destination, release };
}
