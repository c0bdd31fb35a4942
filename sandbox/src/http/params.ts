import { invalidParam, missingParam } from './errors';

/**
 * Typed access to a request's parameters (query string for GET, JSON body for POST).
 * Every failure names the parameter. Most scalars are declared as strings by the service,
 * so numbers and booleans are accepted both as JSON values and as their string forms.
 */
export class Params {
	constructor(private readonly source: Record<string, unknown>) {}

	has(name: string): boolean {
		const value = this.source[name];
		return value !== undefined && value !== null && value !== '';
	}

	raw(name: string): unknown {
		return this.source[name];
	}

	string(name: string): string | undefined {
		if (!this.has(name)) return undefined;
		const value = this.source[name];
		if (typeof value === 'string') return value;
		if (typeof value === 'number' || typeof value === 'boolean') return String(value);
		throw invalidParam(name, 'must be a string');
	}

	requiredString(name: string): string {
		const value = this.string(name);
		if (value === undefined || value.trim() === '') throw missingParam(name);
		return value;
	}

	int(name: string, bounds: { min?: number; max?: number } = {}): number | undefined {
		if (!this.has(name)) return undefined;
		const value = this.source[name];
		const parsed = typeof value === 'number' ? value : typeof value === 'string' ? Number(value.trim()) : NaN;
		if (!Number.isInteger(parsed)) throw invalidParam(name, 'must be an integer');
		if (bounds.min !== undefined && parsed < bounds.min) throw invalidParam(name, `must be at least ${bounds.min}`);
		if (bounds.max !== undefined && parsed > bounds.max) throw invalidParam(name, `must be at most ${bounds.max}`);
		return parsed;
	}

	requiredInt(name: string, bounds: { min?: number; max?: number } = {}): number {
		const value = this.int(name, bounds);
		if (value === undefined) throw missingParam(name);
		return value;
	}

	number(name: string): number | undefined {
		if (!this.has(name)) return undefined;
		const value = this.source[name];
		const parsed = typeof value === 'number' ? value : typeof value === 'string' ? Number(value.trim()) : NaN;
		if (!Number.isFinite(parsed)) throw invalidParam(name, 'must be a number');
		return parsed;
	}

	bool(name: string): boolean | undefined {
		if (!this.has(name)) return undefined;
		const value = this.source[name];
		if (typeof value === 'boolean') return value;
		if (value === 'true' || value === '1' || value === 1) return true;
		if (value === 'false' || value === '0' || value === 0) return false;
		throw invalidParam(name, 'must be true or false');
	}

	/** A value that may be one string or an array of strings (e.g. `tag`). */
	stringList(name: string): string[] | undefined {
		if (!this.has(name)) return undefined;
		const value = this.source[name];
		if (typeof value === 'string') return [value];
		if (Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'string' && item !== '')) {
			return value as string[];
		}
		throw invalidParam(name, 'must be a string or a non-empty array of strings');
	}

	requiredStringList(name: string): string[] {
		const value = this.stringList(name);
		if (value === undefined) throw missingParam(name);
		return value;
	}

	object(name: string): Record<string, unknown> | undefined {
		if (!this.has(name)) return undefined;
		const value = this.source[name];
		if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
		throw invalidParam(name, 'must be an object');
	}

	requiredObject(name: string): Record<string, unknown> {
		const value = this.object(name);
		if (value === undefined) throw missingParam(name);
		return value;
	}

	array(name: string): unknown[] | undefined {
		if (!this.has(name)) return undefined;
		const value = this.source[name];
		if (Array.isArray(value)) return value;
		throw invalidParam(name, 'must be an array');
	}

	requiredArray(name: string): unknown[] {
		const value = this.array(name);
		if (value === undefined) throw missingParam(name);
		return value;
	}

	/** One of a fixed set of words, e.g. sort=new|old. */
	choice<T extends string>(name: string, allowed: readonly T[]): T | undefined {
		const value = this.string(name);
		if (value === undefined) return undefined;
		if (!(allowed as readonly string[]).includes(value))
			throw invalidParam(name, `must be one of: ${allowed.join(', ')}`);
		return value as T;
	}
}

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 1000;

export function pageOf(params: Params): { limit: number; offset: number } {
	return {
		limit: params.int('limit', { min: 1, max: MAX_PAGE_SIZE }) ?? DEFAULT_PAGE_SIZE,
		offset: params.int('offset', { min: 0 }) ?? 0,
	};
}

export function paginate<T>(items: T[], params: Params): { items: T[]; total: number } {
	const { limit, offset } = pageOf(params);
	return { items: items.slice(offset, offset + limit), total: items.length };
}
