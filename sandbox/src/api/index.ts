import { accountModule } from './account';
import { catalogModule } from './catalog';
import { crmModule } from './crm';
import type { SandboxModule } from './endpoint';
import { hooksModule } from './hooks';
import { keysModule } from './keys';
import { listsModule } from './lists';
import { messagingModule } from './messaging';
import { statsModule } from './stats';
import { subscribersModule } from './subscribers';

/** Every domain area of the API; a new area is one module here. */
export const modules: SandboxModule[] = [
	accountModule,
	keysModule,
	subscribersModule,
	messagingModule,
	crmModule,
	statsModule,
	listsModule,
	catalogModule,
	hooksModule,
];
