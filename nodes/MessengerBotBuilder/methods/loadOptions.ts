import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';
import { searchBots } from './listSearch';
import { listColumns } from './resourceMapping';

/** The bots the key may see, for choosing several at once. */
export async function getBots(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return (await searchBots.call(this)).results.map(({ name, value }) => ({ name, value }));
}

/** The chosen list's columns, for condition pickers. */
export async function getColumns(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return (await listColumns.call(this)).map((column) => ({ name: column, value: column }));
}
