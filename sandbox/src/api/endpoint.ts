import type { IncomingHttpHeaders } from 'node:http';
import type { EventKind } from '@messenger-bot-builder/receiver';
import type { Router } from 'express';
import type { Clock } from '../clock';
import type { ResolvedOptions } from '../config';
import type { Store } from '../store/store';
import type { Params } from '../http/params';
import type { ApiKey } from '../domain/keys';

export type EventListener = (type: EventKind, data: Record<string, unknown>) => void;

/** Where domain changes announce events; the hook dispatcher listens and delivers them. */
export interface EventSink {
	emit(type: EventKind, data: Record<string, unknown>): void;
	listen(listener: EventListener): void;
}

/** What every handler and module sees of the running sandbox. */
export interface SandboxContext {
	store: Store;
	clock: Clock;
	options: ResolvedOptions;
	events: EventSink;
}

/** One call of an API method, after authentication, scope check and rate limiting. */
export interface ApiCall extends SandboxContext {
	params: Params;
	headers: IncomingHttpHeaders;
	key: ApiKey;
	/** Throws 403 bot_forbidden when the key is restricted to other bots. */
	assertBot(botid: string): void;
	/** False when the key is restricted to other bots (for filtering lists). */
	botAllowed(botid: string): boolean;
}

/**
 * A method of the API. Methods that only read accept GET (query string) and POST (JSON body);
 * methods that change data accept POST only and answer 405 to GET.
 */
export interface Endpoint {
	path: string;
	methods: 'GET or POST' | 'POST';
	scope: string;
	handle(call: ApiCall): unknown;
}

/** A domain area: its API methods and, optionally, demo data, routes outside /api, and background work. */
export interface SandboxModule {
	name: string;
	endpoints: Endpoint[];
	/** Adds demo data to an empty store. */
	seed?(context: SandboxContext): void;
	/** Routes outside /api (e.g. /sandbox/payments, download links). */
	mount?(app: Router, context: SandboxContext): void;
	/** Starts background work (timers, listeners on `events`); returns how to stop it. */
	start?(context: SandboxContext): (() => Promise<void> | void) | void;
}
