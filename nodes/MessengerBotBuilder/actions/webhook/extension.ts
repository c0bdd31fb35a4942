import type { IDataObject, IExecuteFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

/**
 * Listing and deleting hooks are not part of the service's documented interface; some
 * deployments offer them. `call` makes the request(s) to `path`; a 404 becomes an error that
 * says what to do instead.
 */
export async function hookExtension(
	this: IExecuteFunctions,
	path: string,
	itemIndex: number,
	call: () => Promise<IDataObject | IDataObject[]>,
): Promise<IDataObject | IDataObject[]> {
	try {
		return await call();
	} catch (error) {
		// Other failures are NodeApiErrors already: wrapping one hands back the original.
		if ((error as { httpCode?: string }).httpCode !== '404')
			throw new NodeApiError(this.getNode(), error as JsonObject);
		throw new NodeOperationError(this.getNode(), `This service does not offer ${path}`, {
			itemIndex,
			description:
				"Manage this service's webhooks in its dashboard. Webhook → Create works everywhere; listing and deleting are offered only by some deployments.",
		});
	}
}
