import { getBots, getColumns } from './loadOptions';
import { searchBots, searchChains, searchLists, searchProjects, searchStages } from './listSearch';
import { getListColumns } from './resourceMapping';

export const listSearch = { searchBots, searchChains, searchLists, searchProjects, searchStages };

export const loadOptions = { getBots, getColumns };

export const resourceMapping = { getListColumns };
