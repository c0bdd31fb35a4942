import { listResourceName } from '../http/listAnswers';
import type { ContractOptions } from './contractOptions';
import { sandbox, SANDBOX_SENDS, type Schema } from './schema';

/** The answer of a list method in the shape the list flags ask for (`--list-shape`, `--omit-total`). */
export function shapedAnswer(path: string, answer: Schema, options: ContractOptions): Schema {
	const name = listResourceName(path);
	if (name && Array.isArray(answer.anyOf)) {
		// Either shape is documented: the page follows the flags (and is all there is of a bare list).
		const branches = answer.anyOf as Schema[];
		const page = branches.find((branch) => (branch.properties as Record<string, Schema> | undefined)?.items);
		if (page && options.listShape === 'bare') return shapedAnswer(path, page, options);
		return { ...answer, anyOf: branches.map((branch) => shapedAnswer(path, branch, options)) };
	}
	const properties = answer.properties as Record<string, Schema> | undefined;
	if (!name || !properties?.items) return answer;
	const { items, total: _total, ...rest } = properties;
	const total = options.omitTotal ? {} : properties.total ? { total: properties.total } : {};
	const note = `This sandbox runs with${options.listShape !== 'items' ? ` --list-shape ${options.listShape}` : ''}${options.omitTotal ? ' --omit-total' : ''}.`;
	if (options.listShape === 'bare') return sandbox(items, `${note} The records, without an envelope.`);
	const key = options.listShape === 'named' ? name : 'items';
	const shapedProperties = { [key]: items, ...rest, ...total };
	const required = new Set(answer.required as string[]);
	const sends = ((answer[SANDBOX_SENDS] as string[] | undefined) ?? []).filter((name) => name in shapedProperties);
	const shaped: Schema = {
		...answer,
		properties: shapedProperties,
		required: Object.keys(shapedProperties).filter((name) => name === key || required.has(name)),
	};
	delete shaped[SANDBOX_SENDS];
	if (sends.length > 0) shaped[SANDBOX_SENDS] = sends;
	return options.listShape === 'items' && !options.omitTotal ? answer : sandbox(shaped, note);
}
