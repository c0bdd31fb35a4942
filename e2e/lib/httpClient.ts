/**
 * Loaded before every e2e test file (`node --import`, from e2e/run.ts): every `fetch` of the tests on a connection of
 * its own. n8n's HTTP server closes a kept-alive connection after 5 s idle (Node's default keepAliveTimeout), and on a
 * busy machine fetch can hand a request to such a socket just as n8n closes it: the request fails with "other side
 * closed" although n8n never read it (seen in a measured first run at a load average of 10, on a delivery to n8n's
 * webhook). Without keep-alive no request meets a closing socket; on loopback a connection per request costs nothing
 * the tests notice. undici's `pipelining: 0` is its documented switch for that; Node's own fetch uses the dispatcher
 * set here.
 */
import { Agent, setGlobalDispatcher } from 'undici';

setGlobalDispatcher(new Agent({ pipelining: 0 }));
