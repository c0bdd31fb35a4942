import type { EndpointContract } from './contract';
import { accountContracts } from './account';
import { keysContracts } from './keys';
import { subscribersContracts } from './subscribers';
import { messagingContracts } from './messaging';
import { crmContracts } from './crm';
import { statsContracts } from './stats';
import { listsContracts } from './lists';
import { catalogContracts } from './catalog';
import { hooksContracts } from './hooks';

export type { EndpointContract } from './contract';
export { PAGE_PARAMS } from './shared';

/** Every method of the API, by path. A registry endpoint missing here (or a path here missing from it) fails the build of the document. */
export const endpointContracts: Record<string, EndpointContract> = {
	...accountContracts,
	...keysContracts,
	...subscribersContracts,
	...messagingContracts,
	...crmContracts,
	...statsContracts,
	...listsContracts,
	...catalogContracts,
	...hooksContracts,
};
