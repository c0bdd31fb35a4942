/** What the receiver needs from a Redis client: ioredis's generic `call` (a client or a cluster). */
export interface RedisCommandClient {
	call(command: string, ...args: (string | number)[]): Promise<unknown>;
}

export type OwnedRedisClient = RedisCommandClient & { status: string; quit(): Promise<unknown>; disconnect(): void };

/** How long one store command may take before the delivery is answered 503 (a stalled Redis). */
export const DEFAULT_COMMAND_TIMEOUT_MS = 2000;

export class RedisTimeoutError extends Error {
	override readonly name = 'RedisTimeoutError';
}

/** Rejects when `promise` has not settled within `ms`: a paused or stalled Redis never answers by itself. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	const timeout = new Promise<never>((_resolve, reject) => {
		timer = setTimeout(() => reject(new RedisTimeoutError(`Redis did not answer ${what} within ${ms} ms`)), ms);
	});
	return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

type IoRedisClass = typeof import('ioredis').default;
type RedisOptions = import('ioredis').RedisOptions;

/** An ioredis client that ends when told to, also while Redis is away, and ends its duplicates with it. */
export interface EndingRedis extends InstanceType<IoRedisClass> {
	/** Ends this client and every client duplicated from it (BullMQ's own connections), whatever their state. */
	disconnectAll(): void;
}

const endingClasses = new WeakMap<IoRedisClass, new (url: string, options: RedisOptions) => EndingRedis>();

/**
 * ioredis's client with one repair: `disconnect()` while the client waits to reconnect (Redis is away) ends it. ioredis
 * itself only cancels the pending reconnect and leaves the client `reconnecting` for good: no `end` event, which
 * BullMQ waits for when it closes a worker, and the calls queued meanwhile never settle. Duplicates (BullMQ makes
 * its connections by duplicating the one it is given) are of the same kind and are ended by `disconnectAll()`.
 */
function endingRedisClass(Redis: IoRedisClass): new (url: string, options: RedisOptions) => EndingRedis {
	const known = endingClasses.get(Redis);
	if (known) return known;
	class Ending extends Redis implements EndingRedis {
		/** This client and its duplicates while they are connected or trying to be (an ended one may connect again). */
		#family = new Set<Ending>([this]);

		override duplicate(override?: Partial<RedisOptions>): Ending {
			const copy = new Ending({ ...this.options, ...override });
			copy.#family = this.#family;
			copy.#joinFamily();
			return copy;
		}

		#joinFamily(): void {
			this.#family.add(this);
			this.on('end', () => this.#family.delete(this));
			this.on('connecting', () => this.#family.add(this));
		}

		override disconnect(reconnect = false): void {
			if (!reconnect) this.#forgetClosedStream();
			if (reconnect || this.status !== 'reconnecting') return super.disconnect(reconnect);
			super.disconnect(); // cancels the pending reconnect and marks the client as closing, but ends nothing
			// One more attempt, as a closing client: if it fails, ioredis ends the client and fails its queued calls; if
			// Redis is back, the connection is ended as soon as it is ready.
			const endWhenReady = () => super.disconnect();
			this.once('ready', endWhenReady);
			this.once('end', () => this.off('ready', endWhenReady));
			this.connect().catch(() => undefined);
		}

		/**
		 * A client whose socket has closed (it waits to reconnect, or has ended) still holds that socket in its connector.
		 * ioredis's `AbstractConnector.disconnect` (5.11) ends it and starts a timer of `disconnectTimeout` (2 s), cleared
		 * by the socket's next 'close' event: a closed socket has none to give, so the timer ran its 2 s and kept the
		 * process alive that long after everything had ended (jest found it as a worker that failed to exit). Not when
		 * reconnecting on purpose (`disconnect(true)`), which waits for that 'close'.
		 */
		#forgetClosedStream(): void {
			const connector = (this as unknown as { connector?: { stream?: { destroyed?: boolean } } }).connector;
			if (connector?.stream?.destroyed === true) connector.stream = undefined;
		}

		disconnectAll(): void {
			for (const client of this.#family) if (client.status !== 'end') client.disconnect();
		}
	}
	endingClasses.set(Redis, Ending);
	return Ending;
}

/** Loads ioredis (an optional peer dependency) and connects; see {@link endingRedisClass} for how it ends. */
export async function connectEndingRedis(url: string, options: RedisOptions, missing: string): Promise<EndingRedis> {
	let Redis: IoRedisClass;
	try {
		Redis = (await import('ioredis')).default;
	} catch (error) {
		throw new Error(missing, { cause: error });
	}
	const redis = new (endingRedisClass(Redis))(url, options);
	// Connection errors reach callers as rejected commands; without a listener ioredis would also print each one.
	redis.on('error', () => undefined);
	return redis;
}

/** Connects with ioredis (an optional peer dependency), failing fast while Redis is down but reconnecting by itself. */
export async function connectRedis(url: string, what: string): Promise<OwnedRedisClient> {
	return connectEndingRedis(
		url,
		{ maxRetriesPerRequest: 1 },
		`${what}({ url }) needs the "ioredis" package: npm install ioredis`,
	);
}

/** Ends a connection the receiver opened: QUIT when it is live, else stop reconnecting at once. */
export async function closeOwned(redis: OwnedRedisClient): Promise<void> {
	if (redis.status === 'ready') await redis.quit();
	else redis.disconnect();
}
