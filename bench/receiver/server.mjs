// One benchmark target per process: node server.mjs <scenario> <secret>. Prints its URL on stdout.
// BENCH_RECEIVER_MODULE (a path to a build's index.js) loads another build of the receiver, to compare two builds.
import { pathToFileURL } from 'node:url';
import express from 'express';
import { Webhooks, createNodeMiddleware } from '@octokit/webhooks';

const { createReceiver } = await import(
  process.env.BENCH_RECEIVER_MODULE ? pathToFileURL(process.env.BENCH_RECEIVER_MODULE).href : '@messenger-bot-builder/receiver'
);

const [scenario, secret] = process.argv.slice(2);
let handled = 0;
let requests = 0;
const app = express();
// Counts every delivery request, answered or refused (not the /stats probe).
app.use((req, _res, next) => {
  if (req.path === '/hooks') requests += 1;
  next();
});

switch (scenario) {
  case 'bare':
    // Reads the whole body and answers: the floor any webhook route pays.
    app.post('/hooks', (req, res) => {
      const chunks = [];
      req.on('data', (chunk) => chunks.push(chunk));
      req.on('end', () => {
        Buffer.concat(chunks);
        handled += 1;
        res.status(200).json({ received: true });
      });
    });
    break;
  case 'receiver-jwt':
  case 'receiver-standard-webhooks': {
    const receiver = createReceiver({ secrets: secret });
    receiver.onAny(() => {
      handled += 1;
    });
    app.post('/hooks', receiver.middleware());
    break;
  }
  case 'octokit': {
    const webhooks = new Webhooks({ secret });
    webhooks.onAny(() => {
      handled += 1;
    });
    app.use(createNodeMiddleware(webhooks, { path: '/hooks', log: { debug() {}, info() {}, warn() {}, error: console.error } }));
    break;
  }
  default:
    console.error(`unknown scenario ${scenario}`);
    process.exit(2);
}

// CPU time of this process, for CPU per delivery: steadier than throughput on a busy machine.
app.get('/stats', (_req, res) => {
  const { user, system } = process.cpuUsage();
  res.json({ handled, requests, cpuMicros: user + system });
});
const server = app.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` }));
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
