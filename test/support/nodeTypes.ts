import type { ICredentialType, INodeType, INodeTypes, IVersionedNodeType } from 'n8n-workflow';
import { ApplicationError } from 'n8n-workflow';

/** Prefix under which n8n addresses the nodes of this package in workflow JSON. */
export const PACKAGE = 'n8n-nodes-messenger-bot-builder';

/** The node types a harness workflow may use, by their full type name. */
export class HarnessNodeTypes implements INodeTypes {
	private readonly types = new Map<string, INodeType | IVersionedNodeType>();

	constructor(nodes: Array<INodeType | IVersionedNodeType>) {
		for (const node of nodes) this.types.set(`${PACKAGE}.${node.description.name}`, node);
	}

	getByName(nodeType: string): INodeType | IVersionedNodeType {
		const type = this.types.get(nodeType);
		if (!type) throw new ApplicationError(`Unknown node type ${nodeType}`);
		return type;
	}

	getByNameAndVersion(nodeType: string, version?: number): INodeType {
		const type = this.getByName(nodeType);
		return 'nodeVersions' in type ? type.getNodeType(version) : type;
	}

	getKnownTypes() {
		return Object.fromEntries([...this.types.keys()].map((name) => [name, {}]));
	}
}

export type CredentialTypes = Map<string, ICredentialType>;

export const credentialTypes = (types: ICredentialType[]): CredentialTypes =>
	new Map(types.map((type) => [type.name, type]));
