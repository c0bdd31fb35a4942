import { getBots, getColumns } from './loadOptions';
import {
	searchBots,
	searchChains,
	searchLists,
	searchMessengers,
	searchProjects,
	searchStages,
	searchSubscribers,
} from './listSearch';
import { getListColumns } from './resourceMapping';

export const listSearch = {
	searchBots,
	searchChains,
	searchLists,
	searchMessengers,
	searchProjects,
	searchStages,
	searchSubscribers,
};

export const loadOptions = { getBots, getColumns };

export const resourceMapping = { getListColumns };
