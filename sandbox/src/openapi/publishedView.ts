import { openAnswer, type Schema } from './schema';

type Response = { content?: Record<string, { schema?: Schema }>; headers?: Record<string, { schema?: Schema }> };

/** A response with its body's and headers' schemas opened ({@link openAnswer}); a `$ref` stays as it is. */
function openResponse(response: Response): Response {
	const opened = (entries: Record<string, { schema?: Schema }> | undefined) =>
		entries &&
		Object.fromEntries(
			Object.entries(entries).map(([name, entry]) => [
				name,
				entry.schema ? { ...entry, schema: openAnswer(entry.schema) } : entry,
			]),
		);
	return {
		...response,
		...(response.content ? { content: opened(response.content) } : {}),
		...(response.headers ? { headers: opened(response.headers) } : {}),
	};
}

/** Every answer of the document opened: the operations' responses, components.responses and components.schemas. */
export function publishedView<
	T extends {
		paths: Record<string, unknown>;
		components: { responses: Record<string, unknown>; schemas: Record<string, unknown> };
	},
>(document: T): T {
	const paths = Object.fromEntries(
		Object.entries(document.paths).map(([path, item]) => [
			path,
			Object.fromEntries(
				Object.entries(item as Record<string, unknown>).map(([key, operation]) => {
					const responses = (operation as { responses?: Record<string, Response> }).responses;
					if (!responses) return [key, operation];
					return [
						key,
						{
							...(operation as object),
							responses: Object.fromEntries(
								Object.entries(responses).map(([status, response]) => [status, openResponse(response)]),
							),
						},
					];
				}),
			),
		]),
	);
	const responses = Object.fromEntries(
		Object.entries(document.components.responses).map(([name, response]) => [name, openResponse(response as Response)]),
	);
	const schemas = Object.fromEntries(
		Object.entries(document.components.schemas).map(([name, schema]) => [name, openAnswer(schema as Schema)]),
	);
	return { ...document, paths, components: { ...document.components, responses, schemas } };
}
