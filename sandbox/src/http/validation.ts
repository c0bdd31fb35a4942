import type { IncomingHttpHeaders } from 'node:http';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Endpoint } from '../api/endpoint';
import type { ContractOptions } from '../openapi/contractOptions';
import { paramsOf, requestParts } from '../openapi/request';
import { endpointContracts, type EndpointContract } from '../openapi/endpoints';
import type { ParamSpec } from '../openapi/params';
import { ApiError } from './errors';

interface CompiledMethod {
	contract: EndpointContract;
	params: Record<string, ParamSpec>;
	/** Each parameter's value and the required ones: reported before a missing partner. */
	properties: ValidateFunction;
	/** The rules across parameters, in the contract's order (`needs`, then `exclusive`). */
	rules: ValidateFunction[];
	/** The parameters another needs (`dependentRequired`), checked last. */
	base: ValidateFunction;
	headers: [string, ParamSpec, ValidateFunction][];
}

/** `/items/2/price` → `items[2].price`. */
function locationOf(instancePath: string): string {
	const parts = instancePath
		.split('/')
		.slice(1)
		.map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
	return parts.map((part, index) => (index === 0 ? part : /^\d+$/.test(part) ? `[${part}]` : `.${part}`)).join('');
}

const quote = (names: string[]) => names.map((name) => `"${name}"`).join(' with ');

/** For a parameter whose words come from a fixed list (scopes, event kinds): the words given that are not in it. */
function unknownWords(spec: ParamSpec, value: unknown): string {
	const branches = (spec.schema.anyOf as Record<string, unknown>[] | undefined) ?? [spec.schema];
	const allowed = branches
		.map((branch) => (branch.items as { enum?: unknown[] } | undefined)?.enum ?? branch.enum)
		.find(Array.isArray);
	if (!allowed) return '';
	const unknown = (Array.isArray(value) ? value : [value]).filter((word) => !allowed.includes(word));
	return unknown.length > 0 ? `; unknown: ${unknown.map((word) => JSON.stringify(word)).join(', ')}` : '';
}

/**
 * Checks every call's parameters against the schemas the OpenAPI document publishes (the same definitions, see
 * src/openapi/params.ts), before the method runs: a refusal is a 422 that names the parameter. What a schema
 * cannot say (what exists, rules across parameters and stored state) stays with the methods.
 */
export class RequestValidation {
	private readonly methods = new Map<string, CompiledMethod>();

	constructor(endpoints: Endpoint[], options: ContractOptions) {
		const ajv = new Ajv2020({ strict: false, allErrors: false });
		addFormats(ajv, ['date', 'date-time', 'uri']);
		for (const endpoint of endpoints) {
			const contract = endpointContracts[endpoint.path];
			const headers = Object.entries(contract.headers ?? {}).map(
				([name, spec]): [string, ParamSpec, ValidateFunction] => [name, spec, ajv.compile(spec.schema)],
			);
			// The parts the document publishes as one schema (requestSchema): values and required parameters first, then
			// the rules across parameters (ajv runs `allOf` before `dependentRequired`), then `dependentRequired`.
			const { base, rules } = requestParts(contract, options);
			const { dependentRequired: _dependent, ...required } = base;
			this.methods.set(endpoint.path, {
				contract,
				params: paramsOf(contract, options),
				properties: ajv.compile(required),
				rules: rules.map((rule) => ajv.compile(rule)),
				base: ajv.compile(base),
				headers,
			});
		}
	}

	/** Throws the 422 of the first thing wrong with the call's parameters or declared headers. */
	check(path: string, source: Record<string, unknown>, headers: IncomingHttpHeaders): void {
		const method = this.methods.get(path);
		if (!method) return;
		for (const [name, spec, validate] of method.headers) {
			const raw = headers[name.toLowerCase()];
			const value = Array.isArray(raw) ? raw[0] : raw;
			if (value === undefined) {
				if (spec.required) throw new ApiError(422, 'missing_param', `Header "${name}" is required`, { param: name });
			} else if (!validate(value)) {
				throw new ApiError(422, 'invalid_param', `Header "${name}" ${spec.expect}`, { param: name });
			}
		}
		if (!method.properties(source)) throw this.refusal(method, source, method.properties.errors ?? []);
		const broken = method.rules.findIndex((rule) => !rule(source));
		if (broken >= 0) throw this.ruleRefusal(method, source, broken);
		if (!method.base(source)) throw this.refusal(method, source, method.base.errors ?? []);
	}

	private refusal(method: CompiledMethod, source: Record<string, unknown>, errors: ErrorObject[]): ApiError {
		const first = errors[0];
		if (!first || first.instancePath === '') {
			if (first?.keyword === 'required') {
				const name = (first.params as { missingProperty: string }).missingProperty;
				return new ApiError(422, 'missing_param', `Parameter "${name}" is required`, { param: name });
			}
			if (first?.keyword === 'dependentRequired') {
				const { missingProperty, property } = first.params as { missingProperty: string; property: string };
				return new ApiError(422, 'missing_param', `Parameter "${missingProperty}" is required with "${property}"`, {
					param: missingProperty,
				});
			}
			return new ApiError(422, 'invalid_body', 'The parameters must be a JSON object');
		}
		const at = locationOf(first.instancePath);
		const name = at.split(/[[.]/)[0];
		const spec = method.params[name];
		const { additionalProperty, missingProperty } = first.params as {
			additionalProperty?: string;
			missingProperty?: string;
		};
		const location =
			additionalProperty !== undefined
				? `${at}.${additionalProperty}`
				: missingProperty !== undefined
					? `${at}.${missingProperty}`
					: at;
		// `param` names the parameter; for a list of records (rows, items) the record or its field at fault, e.g. items[2].price.
		const param = spec.namesEntries ? location : name;
		const value = source[name];
		if (spec.tooManyCode && first.keyword === 'maxItems' && first.instancePath === `/${name}`) {
			const max = (first.params as { limit: number }).limit;
			return new ApiError(
				422,
				spec.tooManyCode,
				`Parameter "${name}" holds ${(value as unknown[]).length} entries; at most ${max} are accepted per request, nothing was changed`,
				{ param: name, max },
			);
		}
		const detail =
			location === name
				? ''
				: ` (${location} ${missingProperty !== undefined ? 'is missing' : additionalProperty !== undefined ? 'is not allowed' : 'is wrong'})`;
		const maximum = ((spec.schema.anyOf as Record<string, unknown>[] | undefined)?.[0]?.maximum ??
			spec.schema.maximum) as number | undefined;
		const max = maximum !== undefined && location === name ? { max: maximum } : {};
		const code = missingProperty !== undefined && spec.namesEntries ? 'missing_param' : 'invalid_param';
		return new ApiError(422, code, `Parameter "${name}" ${spec.expect}${detail}${unknownWords(spec, value)}`, {
			param,
			...max,
		});
	}

	/** A rule across parameters failed: `needs` come first, then `exclusive`. */
	private ruleRefusal({ contract }: CompiledMethod, source: Record<string, unknown>, index: number): ApiError {
		const needs = contract.needs ?? [];
		if (index < needs.length) {
			// Every value given is valid (checked first), so a group failed for want of a parameter.
			// The alternative the caller started (most of its parameters given) names the one missing.
			const alternatives = needs[index];
			const given = (names: string[]) => names.filter((name) => source[name] !== undefined).length;
			const started = alternatives.reduce(
				(best, names) => (given(names) > given(best) ? names : best),
				alternatives[0],
			);
			const missing = started.find((name) => source[name] === undefined) ?? started[0];
			return new ApiError(422, 'missing_param', `Parameter ${alternatives.map(quote).join(' or ')} is required`, {
				param: missing,
			});
		}
		const [first, second] = (contract.exclusive ?? [])[index - needs.length];
		return new ApiError(422, 'invalid_param', `Parameter "${second}" cannot be given together with "${first}"`, {
			param: second,
		});
	}
}
