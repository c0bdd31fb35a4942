import type {
	ICredentialDataDecryptedObject,
	ICredentials,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeProperties,
	IRequestOptionsSimplified,
	IWorkflowDataProxyAdditionalKeys,
	Workflow,
} from 'n8n-workflow';
import { ApplicationError, ICredentialsHelper } from 'n8n-workflow';
import type { CredentialTypes } from './nodeTypes';

export interface StoredCredential {
	id: string;
	name: string;
	type: string;
	data: ICredentialDataDecryptedObject;
}

type RequestTarget = 'headers' | 'qs' | 'body' | 'auth';

/**
 * Credentials for harness runs, kept in memory in clear. `authenticate` applies a credential
 * type's generic `authenticate` block, resolving its `={{$credentials.…}}` expressions with the
 * workflow's own expression engine, as n8n does.
 */
export class HarnessCredentialsHelper extends ICredentialsHelper {
	private readonly stored = new Map<string, StoredCredential>();

	constructor(readonly types: CredentialTypes) {
		super();
	}

	add(credential: StoredCredential): void {
		this.stored.set(credential.id, credential);
	}

	getParentTypes(): string[] {
		return [];
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const type = this.types.get(typeName);
		if (!type) throw new ApplicationError(`Unknown credential type ${typeName}`);
		const auth = type.authenticate;
		if (!auth) return requestOptions as IHttpRequestOptions;
		if (typeof auth === 'function') return await auth(credentials, requestOptions as IHttpRequestOptions);
		if (!workflow || !node) throw new ApplicationError('Generic authentication needs the workflow and node');

		const additionalKeys = { $credentials: credentials } as unknown as IWorkflowDataProxyAdditionalKeys;
		const resolve = (value: unknown) =>
			workflow.expression.getParameterValue(value as string, null, 0, 0, node.name, [], 'internal', additionalKeys);
		const options = requestOptions as unknown as Record<RequestTarget, Record<string, unknown> | undefined>;
		for (const [target, entries] of Object.entries(auth.properties) as Array<
			[RequestTarget, Record<string, unknown>]
		>) {
			const resolved: Record<string, unknown> = {};
			for (const [name, value] of Object.entries(entries ?? {})) resolved[name] = resolve(value);
			options[target] = { ...(options[target] ?? {}), ...resolved };
		}
		return requestOptions as IHttpRequestOptions;
	}

	async preAuthentication(): Promise<undefined> {
		return undefined;
	}

	async runPreAuthentication(): Promise<undefined> {
		return undefined;
	}

	async getCredentials(): Promise<ICredentials> {
		throw new ApplicationError('The harness hands out decrypted credentials only');
	}

	async getDecrypted(
		_additionalData: unknown,
		nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
		const credential = nodeCredentials.id ? this.stored.get(nodeCredentials.id) : undefined;
		if (!credential || credential.type !== type) {
			throw new ApplicationError(`No credential "${nodeCredentials.name}" of type ${type} in the harness`);
		}
		return { ...credential.data };
	}

	async updateCredentials(): Promise<void> {}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	getCredentialsProperties(type: string): INodeProperties[] {
		return this.types.get(type)?.properties ?? [];
	}
}
