import type { IAuthenticate, Icon, ICredentialTestRequest, ICredentialType, INodeProperties } from 'n8n-workflow';

/**
 * An API key of this n8n itself, for the data tables of the trigger's claim log and of Send and Wait's answers: n8n
 * 2.41.1 gives its data tables to its own Data table nodes only (`data-table-proxy.service.js`, `ALLOWED_NODES`), so
 * the nodes reach them through n8n's public API.
 */
export class MessengerBotBuilderN8nApi implements ICredentialType {
	name = 'messengerBotBuilderN8nApi';

	displayName = 'Messenger Bot Builder Data Tables API';

	icon: Icon = {
		light: 'file:../nodes/MessengerBotBuilder/messengerBotBuilder.svg',
		dark: 'file:../nodes/MessengerBotBuilder/messengerBotBuilder.dark.svg',
	};

	documentationUrl =
		'https://github.com/messenger-bot-builder/n8n-nodes-messenger-bot-builder/blob/main/docs/running-at-scale.md#the-claim-log-in-an-n8n-data-table';

	properties: INodeProperties[] = [
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				"An API key of this n8n (Settings → n8n API) with the scopes dataTable:list, dataTable:create, dataTableRow:read, dataTableRow:create and dataTableRow:delete (the trigger's claim log deletes expired claims)",
		},
		{
			displayName: 'n8n Address',
			name: 'baseUrl',
			type: 'string',
			default: '',
			placeholder: 'http://n8n-main:5678',
			required: true,
			description:
				"The address at which every n8n process (workers and webhook processes too) reaches n8n's main process, without /api/v1",
		},
	];

	/**
	 * A function, not a generic block with `={{$credentials.apiKey}}`: n8n 2.41.1 evaluates a generic block's values
	 * with its expression engine on every request (credentials-helper.js `resolveValue`), which takes an expression
	 * isolate each time; a function sets the header without one.
	 */
	authenticate: IAuthenticate = async (credentials, requestOptions) => ({
		...requestOptions,
		headers: { ...requestOptions.headers, 'X-N8N-API-KEY': String(credentials.apiKey) },
	});

	// Listing data tables needs the key and the address, and changes nothing.
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
			url: '/api/v1/data-tables?limit=1',
			method: 'GET',
		},
	};
}
