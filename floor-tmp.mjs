import { request } from 'undici';
const res = await request(process.argv[2]);
const data = JSON.parse(await res.body.text());
process.stdout.write(String(data.data.detail.length));
