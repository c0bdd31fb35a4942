import type { IExecuteFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import { apiRequest, type ApiRequest } from '../../transport/request';

/**
 * Listing and deleting hooks are not part of the service's documented interface; some
 * deployments offer them. A 404 becomes an error that says what to do instead.
 */
export async function hookExtension(this: IExecuteFunctions, request: ApiRequest) {
	try {
		return await apiRequest.call(this, request);
	} catch (error) {
		if ((error as { httpCode?: string }).httpCode !== '404') throw new NodeApiError(this.getNode(), error as JsonObject);
		throw new NodeOperationError(this.getNode(), `This service does not offer ${request.path}`, {
			itemIndex: request.itemIndex,
			description:
				"Manage this service's webhooks in its dashboard. Webhook → Create works everywhere; listing and deleting are offered only by some deployments.",
		});
	}
}
