import type { Operation } from '../types';
import { pagingFields } from '../common/fields';
import { paging } from '../common/params';
import { fetchPages } from '../../transport/pagination';
import { hookExtension } from './extension';

const PATH = '/hook/list';

export const getMany: Operation = {
	value: 'getMany',
	name: 'Get Many',
	action: 'Get many webhooks',
	description: 'Lists the webhooks of the account, one item each, where the service offers listing',
	properties: [...pagingFields],
	async execute(itemIndex) {
		return await hookExtension.call(
			this,
			PATH,
			itemIndex,
			async () =>
				await fetchPages.call(
					this,
					{ method: 'POST', path: PATH, readOnly: true, itemIndex },
					paging.call(this, itemIndex),
				),
		);
	},
};
