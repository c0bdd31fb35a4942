import type { IDisplayOptions, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

/**
 * Version 2 of the node changed outputs and some fields (see the CHANGELOG); workflows saved with
 * version 1 keep what they had. These say which version a parameter belongs to.
 */
export const onlyVersion1 = { '@version': [1] };
export const fromVersion2 = { '@version': [{ _cnd: { gte: 2 } }] };

/** True for workflows saved with version 1 of the node: their outputs and defaults stay as they were. */
export const isVersion1 = (context: IExecuteFunctions) => context.getNode().typeVersion < 2;

/**
 * True from version 3: outputs say who got what (recipient, request, audience; who answered a Send and Wait, and
 * when). Workflows saved with versions 1 and 2 keep the outputs they were built on.
 */
export const namesRecipients = (context: Pick<IExecuteFunctions, 'getNode'>) => context.getNode().typeVersion >= 3;

/**
 * True from version 4: Send and Wait for Response names the subscriber it asked (`askedSubscriber`) and says the answer
 * came through the question's link (`answeredThrough`), instead of version 3's `respondedBy`, which claimed the asked
 * subscriber answered: an answer link is a bearer secret, whoever holds the message can answer.
 */
export const namesAskedSubscriber = (context: Pick<IExecuteFunctions, 'getNode'>) => context.getNode().typeVersion >= 4;

/**
 * True from version 4: a Custom Form answer also goes out as a list, `fields: [{ label, value }]` in the form's order.
 * n8n copies items with n8n-workflow's deepCopy, which leaves out the keys `__proto__`, `constructor` and `prototype`
 * (`reservedCopyKeys`), so the `answer` object cannot carry such a label; the list can. Version 3 has no list and
 * refuses those labels.
 */
export const listsFormFields = (context: Pick<IExecuteFunctions, 'getNode'>) => context.getNode().typeVersion >= 4;

/** The property, shown only in the given versions (on top of its own display rules). */
export function inVersions(property: INodeProperties, versions: IDisplayOptions['show']): INodeProperties {
	return {
		...property,
		displayOptions: { ...property.displayOptions, show: { ...property.displayOptions?.show, ...versions } },
	};
}

/** Whether a property's `@version` rule (if any) admits `version`. */
export function shownInVersion(property: INodeProperties, version: number): boolean {
	const rule = property.displayOptions?.show?.['@version'];
	if (!rule) return true;
	return rule.some((entry) => {
		if (typeof entry === 'number') return entry === version;
		const condition = (entry as { _cnd?: { gte?: number } })._cnd;
		return condition?.gte !== undefined && version >= condition.gte;
	});
}
