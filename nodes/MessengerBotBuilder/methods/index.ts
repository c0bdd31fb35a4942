import { searchBots, searchChains, searchLists, searchProjects, searchStages } from './listSearch';
import { getListColumns } from './resourceMapping';

export const listSearch = { searchBots, searchChains, searchLists, searchProjects, searchStages };

export const resourceMapping = { getListColumns };
