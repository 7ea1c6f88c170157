// The pool benchmark in a page: window.benchPool runs bench/pool-sides.mjs's cases and crossover
// with onnxruntime-web's wasm build (its own wasm files served from bench/node_modules).
import * as ort from './node_modules/onnxruntime-web/dist/ort.wasm.min.mjs';
import { createPool, loadHeadwise } from '../web/headwise.js';
import { benchCase, crossover, POOL_CASES } from './pool-sides.mjs';

ort.env.wasm.wasmPaths = new URL('./node_modules/onnxruntime-web/dist/', import.meta.url).href;

window.benchPool = async ({ cases, size, withCrossover, ortThreads }) => {
  const hw = await loadHeadwise();
  const pool = await createPool(size ? { size } : undefined);
  const results = [];
  for (const c of POOL_CASES.filter((k) => !cases || cases.includes(k.name))) {
    const label = `onnxruntime-web (${ortThreads} threads asked)`;
    results.push(await benchCase({ hw, pool, ort, ortThreads, ortLabel: label }, c));
  }
  const cross = withCrossover ? await crossover({ hw, pool }) : [];
  const info = {
    size: pool.size,
    fallbackReason: pool.fallbackReason,
    crossOriginIsolated: globalThis.crossOriginIsolated,
    hardwareConcurrency: navigator.hardwareConcurrency,
    ortThreadsAfter: ort.env.wasm.numThreads,
  };
  pool.dispose();
  return { info, results, cross };
};
