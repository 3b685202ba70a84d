/**
 * Sums a V8 CPU profile (`.cpuprofile`, as `npm run bench -- --profile` writes for the HTTP server)
 * by self time: per package (node_modules/<name>, the app's own files, node internals, GC/idle)
 * and per function. Run: `npx tsx bench/profile-summary.ts <file.cpuprofile>… [--top 40] [--per N]`
 * where `--per` divides the times by N (e.g. the number of requests the profile covers), so the
 * table reads as CPU ms per request.
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '40' }, per: { type: 'string', default: '1' } } });
const top = Number(values.top);
const per = Number(values.per);

/** The package a script URL belongs to: `node_modules/<pkg>` (scoped too), `.next` chunks, or node internals. */
function packageOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const match = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/g);
  if (match) return match.at(-1)!.replace('node_modules/', '');
  if (url.startsWith('node:')) return 'node:internal';
  if (url.includes('/.next')) return `app chunk ${url.split('/').slice(-1)[0]}`;
  return url.replace(/^file:\/\//, '').split('/').slice(-2).join('/');
}

const byPackage = new Map<string, number>();
const byFunction = new Map<string, number>();
let total = 0;
let wall = 0;
for (const file of positionals) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  wall += (profile.endTime - profile.startTime) / 1000;
  for (const [id, micros] of self) {
    const { callFrame } = nodes.get(id)!;
    const ms = micros / 1000;
    const pkg = packageOf(callFrame.url, callFrame.functionName);
    if (callFrame.functionName !== '(idle)') total += ms;
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + ms);
    const fn = `${callFrame.functionName || '(anonymous)'} ${pkg}:${callFrame.lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + ms);
  }
}

const print = (title: string, map: Map<string, number>) => {
  console.log(`\n${title} (ms${per > 1 ? ` per 1/${per}` : ''}, % of non-idle CPU ${total.toFixed(0)} ms, wall ${wall.toFixed(0)} ms)`);
  for (const [name, ms] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${(ms / per).toFixed(3).padStart(10)}  ${((100 * ms) / total).toFixed(1).padStart(5)}%  ${name}`);
  }
};
print('self time by package', byPackage);
print('self time by function', byFunction);
