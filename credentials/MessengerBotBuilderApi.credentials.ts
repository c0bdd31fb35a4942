import type { IAuthenticate, Icon, ICredentialTestRequest, ICredentialType, INodeProperties } from 'n8n-workflow';

/** API key of a messenger-bot builder account, and the address of its API. */
export class MessengerBotBuilderApi implements ICredentialType {
	name = 'messengerBotBuilderApi';

	displayName = 'Messenger Bot Builder API';

	icon: Icon = {
		light: 'file:../nodes/MessengerBotBuilder/messengerBotBuilder.svg',
		dark: 'file:../nodes/MessengerBotBuilder/messengerBotBuilder.dark.svg',
	};

	documentationUrl =
		'https://github.com/messenger-bot-builder/n8n-nodes-messenger-bot-builder/blob/main/docs/using-the-nodes.md#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'The account key, or a key made with "API Key → Create" that has the scopes your workflow needs',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			placeholder: 'https://api.example.com/api',
			required: true,
			description: 'Address of the API including the /api path prefix, without a trailing slash',
		},
	];

	/**
	 * A function, not a generic block with `={{$credentials.apiKey}}`: n8n 2.41.1 evaluates a generic block's values
	 * with its expression engine on every request (credentials-helper.js `resolveValue`), which takes an expression
	 * isolate each time; a function sets the header without one.
	 */
	authenticate: IAuthenticate = async (credentials, requestOptions) => ({
		...requestOptions,
		headers: { ...requestOptions.headers, Authorization: String(credentials.apiKey) },
	});

	// A read-only call (scope account:read, which the account key has): "Test" proves both the key and the address.
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
			url: '/account/balance/get',
			method: 'GET',
		},
	};
}
