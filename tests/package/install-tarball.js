// `npm pack` this repository and install the tarball, offline, into a fresh temporary project:
// the package exactly as npm users get it. Used by the Node and the browser package tests.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// 320 KB for the API, the explorer (with the Learn panel's induction view and the trained heads)
// and the module, and 400 KB for the shipped checkpoints (web/checkpoints/*.json: float32
// weights, 412 KB gzipped when measured). Measured 2026-12-03: 716,976 B in all; 2026-12-04
// 739,868 B after issue 32's trainer contract and schema (the core's kind, task and role tables and
// head ranges in the module, about +1 KB gzipped; the .d.ts's kinds, tasks and one option row, +0.7 KB),
// then about +5 KB with the explorer's panels in a folder each (web/explorer/panels/<id>/, figures/),
// then 753,929 B with issue 33's story task in the module (its 338 words and five templates, +8 KB).
// Issue 33's ceiling is 1.2 MB: 892,900 B (npm pack --dry-run, 2026-12-04) with its first story
// checkpoint (story-4-heads.json: 64,338 weights as float16, a curve every 250 steps and the
// ablation table, 196 KB, 133 KB gzipped) and the heads panel's story section (+4 KB): +150 KiB.
// Then 911,397 B with issue 37's KV cache, grouped-query attention and cache sizes in the module
// (+13.8 KB of wasm) and web/kv.js: +10 KiB. Then 922,873 B with the story and kv panels and
// per-figure exports (second sitting of 2026-12-04): +20 KiB. Then 944,345 B (third sitting) with
// multi-head latent attention in createAttention (the core's latent operator linked into the module,
// +7.8 KB of wasm gzipped, web/latent.js) and the kv panel's generation timing (web/pool/worker-timer.js,
// the panel's kv-timing*.js): +20 KiB. Then 1,074,859 B with the second story checkpoint
// (story-2-heads.json, the heads panel's 2-head model: 189 KB, +130,139 B = 127.1 KiB packed):
// +128 KiB, under issue 33's 1.2 MB ceiling. Then 1,190,023 B (2026-12-05) with every checkpoint's
// weights as float16 (induction and verb-noun: -259 KB of JSON, -141 KB gzipped) and the issue's
// last two story checkpoints (story-1-head with its weights, story-2-layers: +300 KB gzipped): the
// limit is now the ceiling itself.
export const TARBALL_LIMIT_BYTES = 1_200_000;

/** @returns {{ work: string, app: string, tarball: string, bytes: number, remove(): void }} */
export function packAndInstall(prefix = 'headwise-pack-') {
  const work = mkdtempSync(join(tmpdir(), prefix));
  const [info] = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: ROOT, encoding: 'utf8' }),
  );
  const tarball = join(work, info.filename);
  const bytes = statSync(tarball).size;
  console.log(
    `npm pack: ${info.filename}, ${(bytes / 1024).toFixed(1)} KB packed, ` +
      `${(info.unpackedSize / 1024).toFixed(1)} KB unpacked, ${info.entryCount} files`,
  );
  const app = join(work, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--offline', tarball], { cwd: app, stdio: 'pipe' });
  return { work, app, tarball, bytes, remove: () => rmSync(work, { recursive: true, force: true }) };
}
