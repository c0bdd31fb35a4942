import type { ILoadOptionsFunctions, ResourceMapperField, ResourceMapperFields } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { recordsOf } from '../actions/common/params';
import { apiRequest } from '../transport/request';

/** Columns the service fills by itself when a row does not give them. */
export const SERVICE_COLUMNS = ['CreationDate', 'ClientID', 'Messenger', 'BotID'];

/** The chosen list's headers, in order, as mappable fields (names may be non-Latin). */
export async function listColumns(this: ILoadOptionsFunctions): Promise<string[]> {
	const listRef = String(this.getNodeParameter('listId', '', { extractValue: true }) ?? '').trim();
	if (!listRef) return [];
	const lists = recordsOf(await apiRequest.call(this, { method: 'GET', path: '/list/all' }), 'lists');
	const list = lists.find((candidate) => String(candidate.id) === listRef || candidate.name === listRef);
	if (!list) throw new NodeOperationError(this.getNode(), `The list "${listRef}" was not found`);
	return Array.isArray(list.headers) ? (list.headers as unknown[]).map(String) : [];
}

export async function getListColumns(this: ILoadOptionsFunctions): Promise<ResourceMapperFields> {
	const fields: ResourceMapperField[] = (await listColumns.call(this)).map((column) => ({
		id: column,
		displayName: column,
		required: false,
		defaultMatch: false,
		canBeUsedToMatch: false,
		display: true,
		type: 'string',
	}));
	return { fields };
}
