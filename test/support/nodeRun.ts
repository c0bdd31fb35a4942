import type { IDataObject, INodeExecutionData, INodeParameters, ResourceMapperValue } from 'n8n-workflow';
import { MessengerBotBuilderApi } from '../../credentials/MessengerBotBuilderApi.credentials';
import { MessengerBotBuilder } from '../../nodes/MessengerBotBuilder/MessengerBotBuilder.node';
import { Harness, type RunResult, type WorkflowDefinition } from './runWorkflow';
import { HarnessItems } from './itemsNode';
import { PACKAGE } from './nodeTypes';

export const NODE_NAME = 'Messenger Bot Builder';

/** A resource locator value given by ID, as n8n stores it. */
export const byId = (value: string | number) => ({ __rl: true, mode: 'id', value: String(value) });

export interface NodeRunOptions {
	items?: IDataObject[];
	/** Which stored credential the node uses (default `main`). */
	credential?: string;
	continueOnFail?: boolean;
	/** "On Error: Continue (using error output)": failed items go to a second output. */
	errorOutput?: boolean;
}

/** A harness with this package's node and credential, and credentials pointed at a sandbox. */
export class NodeRunner {
	readonly harness = new Harness({
		nodes: [new MessengerBotBuilder(), new HarnessItems()],
		credentials: [new MessengerBotBuilderApi()],
	});

	constructor(baseUrl: string, apiKey: string) {
		this.useKey('main', apiKey, baseUrl);
	}

	/** Stores (or replaces) a credential under `id`. */
	useKey(id: string, apiKey: string, baseUrl: string): void {
		this.harness.addCredential({ id, name: id, type: 'messengerBotBuilderApi', data: { apiKey, baseUrl } });
	}

	/** The two-node workflow "Items → Messenger Bot Builder" with the given node parameters. */
	workflow(parameters: INodeParameters, options: NodeRunOptions = {}): WorkflowDefinition {
		const credential = options.credential ?? 'main';
		return {
			nodes: [
				{
					id: 'items',
					name: 'Items',
					type: `${PACKAGE}.harnessItems`,
					typeVersion: 1,
					position: [0, 0],
					parameters: { items: JSON.stringify(options.items ?? [{}]) },
				},
				{
					id: 'mbb',
					name: NODE_NAME,
					type: `${PACKAGE}.messengerBotBuilder`,
					typeVersion: 1,
					position: [200, 0],
					parameters,
					credentials: { messengerBotBuilderApi: { id: credential, name: credential } },
					...(options.continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
					...(options.errorOutput ? { onError: 'continueErrorOutput' as const } : {}),
				},
			],
			connections: { Items: { main: [[{ node: NODE_NAME, type: 'main', index: 0 }]] } },
		};
	}

	async execute(parameters: INodeParameters, options: NodeRunOptions = {}): Promise<RunResult> {
		return await this.harness.run(this.workflow(parameters, options));
	}

	/** Runs the node and returns its output items; fails with the node's error if it failed. */
	async items(parameters: INodeParameters, options: NodeRunOptions = {}): Promise<INodeExecutionData[]> {
		return (await this.execute(parameters, options)).output(NODE_NAME);
	}

	/** Runs the node and returns the JSON of its output items. */
	async json(parameters: INodeParameters, options: NodeRunOptions = {}): Promise<IDataObject[]> {
		return (await this.items(parameters, options)).map((item) => item.json);
	}

	/** Runs the node expecting it to fail; returns the error. */
	async failure(parameters: INodeParameters, options: NodeRunOptions = {}) {
		const result = await this.execute(parameters, options);
		const error = result.nodeError(NODE_NAME);
		if (!error) throw new Error(`Expected ${String(parameters.operation)} to fail, it succeeded`);
		return error as typeof error & { context: IDataObject; httpCode?: string | null; description?: string | null };
	}
}

/** A resource-mapper value with the columns given here ("Map Each Column Manually"). */
export const mapColumns = (value: Record<string, string | number | boolean | null>): ResourceMapperValue => ({
	mappingMode: 'defineBelow',
	value,
	matchingColumns: [],
	schema: [],
	attemptToConvertTypes: false,
	convertFieldsToString: false,
});

/** A resource-mapper value that takes the input fields named like the columns ("Map Automatically"). */
export const autoMapColumns: ResourceMapperValue = { ...mapColumns({}), mappingMode: 'autoMapInputData', value: null };
