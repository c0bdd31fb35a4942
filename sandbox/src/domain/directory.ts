import type { Store } from '../store/store';

/**
 * The account's configuration as the service's editor would hold it: bots, projects, chains with
 * their steps and blocks, and CRM funnel stages. The API reads it; the sandbox seeds it.
 */
export interface Bot {
	id: string;
	name: string;
	messenger: string;
	/** Code of the project (group) the bot belongs to. */
	group: string;
	username: string;
	created: string;
}

export interface Group {
	code: string;
	name: string;
}

export interface ChainBlock {
	id: string;
	text: string;
}

export interface ChainStep {
	code: string;
	name: string;
	blocks: ChainBlock[];
}

export interface Chain {
	code: string;
	name: string;
	botid: string;
	/** Tag that starts the chain by itself when a subscriber receives it (e.g. a CRM stage's tag). */
	trigger: string | null;
	steps: ChainStep[];
}

export interface CrmStage {
	name: string;
	/** Tag given to a subscriber entering the stage; a chain whose trigger is this tag starts. */
	tag: string;
	order: number;
}

export interface Account {
	id: string;
	name: string;
	email: string;
	timezone: string;
	created: string;
}

export interface Tariff {
	name: string;
	rowCap: number;
	rateLimit: number;
	bots: number;
	paidUntil: string;
}

export interface DirectoryState {
	account: Account;
	tariff: Tariff;
	balance: number;
	bots: Bot[];
	groups: Group[];
	chains: Chain[];
	stages: CrmStage[];
}

export function directory(store: Store): DirectoryState {
	return store.document<DirectoryState>('directory', () => ({
		account: {
			id: 'acc_1',
			name: 'Sandbox account',
			email: 'owner@sandbox.local',
			timezone: 'UTC',
			created: new Date().toISOString(),
		},
		tariff: { name: 'Sandbox', rowCap: 10000, rateLimit: 10, bots: 10, paidUntil: '2099-12-31' },
		balance: 0,
		bots: [],
		groups: [],
		chains: [],
		stages: [],
	}));
}

export function findBot(store: Store, botid: string): Bot | undefined {
	return directory(store).bots.find((bot) => bot.id === botid);
}

export function findChain(store: Store, chaincode: string): Chain | undefined {
	return directory(store).chains.find((chain) => chain.code === chaincode);
}

export function findStage(store: Store, name: string): CrmStage | undefined {
	return directory(store).stages.find((stage) => stage.name === name);
}
