import type { IDataObject } from 'n8n-workflow';
import type { Operation } from '../types';
import { filtersField, pagingFields } from '../common/fields';
import { dayOf, paging } from '../common/params';
import { fetchPages } from '../../transport/pagination';
import { outputFields, shapeRecords, SIMPLIFIED } from '../common/output';

export const getApiLog: Operation = {
	value: 'getApiLog',
	name: 'Get API Log',
	action: 'Get the log of API calls',
	description: 'Returns the calls made to the API with this account, newest first, one item per call',
	properties: [
		...pagingFields,
		filtersField([
			{
				displayName: 'From',
				name: 'from',
				type: 'dateTime',
				default: '',
				description: 'Only calls made on or after this date',
			},
			{
				displayName: 'Only Failed',
				name: 'failed',
				type: 'boolean',
				default: false,
				description: 'Whether to return only calls that ended in an error',
			},
			{
				displayName: 'Path Contains',
				name: 'path',
				type: 'string',
				default: '',
				placeholder: 'e.g. /list/',
				description: 'Only calls whose method path contains this text',
			},
			{
				displayName: 'Status',
				name: 'status',
				type: 'number',
				default: 200,
				description: 'Only calls answered with this HTTP status code, e.g. 429',
			},
		]),
		...outputFields(SIMPLIFIED.apiLogEntry),
	],
	async execute(itemIndex) {
		const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
		const params: IDataObject = { path: filters.path, status: filters.status };
		if (filters.failed === true) params.failed = true;
		params.from = dayOf.call(this, filters.from, 'From', itemIndex);
		const records = await fetchPages.call(
			this,
			{ method: 'GET', path: '/log/get', params, itemIndex },
			paging.call(this, itemIndex),
		);
		return shapeRecords.call(this, itemIndex, records, SIMPLIFIED.apiLogEntry);
	},
};
