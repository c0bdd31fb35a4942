import type { Resource } from '../types';
import { addTags } from './addTags.operation';
import { block } from './block.operation';
import { createOrUpdate } from './createOrUpdate.operation';
import { deleteSubscriber } from './delete.operation';
import { find } from './find.operation';
import { get } from './get.operation';
import { getChatHistory } from './getChatHistory.operation';
import { getMany } from './getMany.operation';
import { getRunningChains } from './getRunningChains.operation';
import { getTags } from './getTags.operation';
import { getVariables } from './getVariables.operation';
import { removeTag } from './removeTag.operation';
import { setVariables } from './setVariables.operation';
import { unblock } from './unblock.operation';
import { update } from './update.operation';

export const subscriber: Resource = {
	value: 'subscriber',
	name: 'Subscriber',
	description: 'Subscriber cards: tags, variables, chat history, blocking',
	operations: [
		addTags,
		block,
		createOrUpdate,
		deleteSubscriber,
		find,
		get,
		getChatHistory,
		getMany,
		getRunningChains,
		getTags,
		getVariables,
		removeTag,
		setVariables,
		unblock,
		update,
	],
};
