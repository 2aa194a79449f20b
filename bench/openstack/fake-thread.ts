import { parentPort } from 'node:worker_threads';
import { FakeOpenStack } from '@platform/testing';

/**
 * Runs in a worker thread: the fake OpenStack on an event loop of its own, as a real cloud
 * would be, so its work is not counted as the API's. Posts its configuration when listening.
 */
const fake = await FakeOpenStack.start();
fake.serverBuildMs = 0;
parentPort!.postMessage({ config: fake.config(), origin: fake.origin });
parentPort!.on('message', (message: { close?: boolean }) => {
  if (message.close) void fake.close().then(() => process.exit(0));
});
