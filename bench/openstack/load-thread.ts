import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { parentPort } from 'node:worker_threads';

/**
 * Runs in a worker thread: the bench's HTTP client, off the API's event loop. Sends `total`
 * GETs, `concurrency` at a time over kept-alive connections, cycling through the targets, and
 * posts each request's latency and the run's wall time in milliseconds (every answer must be
 * 200).
 */
interface Target {
  url: string;
  headers: Record<string, string>;
}
interface Run {
  targets: Target[];
  total: number;
  concurrency: number;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });

function get(target: Target): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const request = http.get(target.url, { agent, headers: target.headers }, (response) => {
      response.resume();
      response.on('end', () => {
        if (response.statusCode !== 200)
          reject(new Error(`${target.url} answered ${response.statusCode}`));
        else resolve(performance.now() - started);
      });
    });
    request.on('error', reject);
  });
}

async function run({
  targets,
  total,
  concurrency,
}: Run): Promise<{ latencies: number[]; wallMs: number }> {
  const started = performance.now();
  const latencies: number[] = [];
  let next = 0;
  const lane = async () => {
    while (next < total) {
      const index = next++;
      latencies.push(await get(targets[index % targets.length]));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return { latencies, wallMs: performance.now() - started };
}

parentPort!.on('message', (message: Run | { close: true }) => {
  if ('close' in message) {
    agent.destroy();
    process.exit(0);
  }
  run(message).then(
    (result) => parentPort!.postMessage(result),
    (error: Error) => parentPort!.postMessage({ error: error.message }),
  );
});
