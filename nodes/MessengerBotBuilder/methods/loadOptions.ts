import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';
import { listColumns } from './resourceMapping';

/** The chosen list's columns, for condition pickers. */
export async function getColumns(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return (await listColumns.call(this)).map((column) => ({ name: column, value: column }));
}
