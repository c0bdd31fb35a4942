import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

/**
 * Operations that create a secret (a hook's signing secret, a new API key) keep it out of their
 * output unless the user asks for it: outputs are stored with the execution, shown in the editor
 * and, when the node is an AI agent's tool, handed to the model.
 */
export const revealSecretField = (what: string): INodeProperties => ({
	displayName: `Include ${what} in Output`,
	name: 'revealSecret',
	type: 'boolean',
	default: false,
	description: `Whether to output the new ${what.toLowerCase()} in full. The service shows it only once. Off: only its last 4 characters are output.`,
	hint: 'Executions keep their output: turn this on only where the next node stores the secret safely',
});

const VISIBLE_TAIL = 4;

function masked(secret: string): string {
	return `…${secret.slice(-VISIBLE_TAIL)}`;
}

/** Masks `holder[field]` (a string) unless the item's "Include … in Output" is on. */
export function guardSecret(
	this: IExecuteFunctions,
	holder: IDataObject | undefined,
	field: string,
	itemIndex: number,
): void {
	const secret = holder?.[field];
	if (!holder || typeof secret !== 'string') return;
	if (this.getNodeParameter('revealSecret', itemIndex, false) as boolean) return;
	holder[field] = masked(secret);
	holder[`${field}Redacted`] = true;
}
