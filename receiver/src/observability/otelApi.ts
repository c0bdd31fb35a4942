import { createRequire } from 'node:module';
import type * as OtelApi from '@opentelemetry/api';

export type OtelApiModule = typeof OtelApi;

/** The instrumentation scope of every span and instrument the receiver makes. */
export const INSTRUMENTATION_SCOPE = '@messenger-bot-builder/receiver';

let loaded: OtelApiModule | undefined | null = null;

/**
 * `@opentelemetry/api`, an optional peer dependency, or undefined when the application does not have it: the receiver
 * then records nothing and costs nothing. Loaded on first use rather than imported, so that a missing package is not
 * an error; the API keeps its state (the registered SDK) on the global object, so this copy and the application's
 * share it.
 */
export function otelApi(): OtelApiModule | undefined {
	if (loaded === null) {
		try {
			loaded = createRequire(__filename)('@opentelemetry/api') as OtelApiModule;
		} catch {
			loaded = undefined;
		}
	}
	return loaded;
}
