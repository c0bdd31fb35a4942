import type { Operation } from '../types';
import { recordsOf } from '../common/params';
import { hookExtension } from './extension';

export const getMany: Operation = {
	value: 'getMany',
	name: 'Get Many',
	action: 'Get many webhooks',
	description: 'Lists the webhooks of the account, one item each, where the service offers listing',
	properties: [],
	async execute(itemIndex) {
		const answer = await hookExtension.call(this, {
			method: 'POST',
			path: '/hook/list',
			params: { limit: 1000 },
			readOnly: true,
			itemIndex,
		});
		return recordsOf(answer, 'hooks');
	},
};
