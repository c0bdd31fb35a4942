import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/**
 * How the answers of several subscribers decide a question (Decide By). `first`: the first answer, as with one
 * subscriber. The others take every answer until the rule is met, so the answers are kept where every n8n process
 * sees them (answerStore.ts): `all` waits for everyone asked (an Approval is approved only if all approve);
 * `firstDecline` declines at the first Decline and approves when all approved; `approvals` approves at the number of
 * approvals needed and declines once too many declined for that number to be reached.
 */
export type DecideBy = 'first' | 'all' | 'approvals' | 'firstDecline';
export const DECIDE_BY_FIRST = 'first';
export const DECIDE_BY: DecideBy[] = ['first', 'all', 'approvals', 'firstDecline'];
/** The rules that keep answers until they decide (all but the first answer). */
export const KEPT_ANSWER_RULES: DecideBy[] = ['all', 'approvals', 'firstDecline'];
/** The rules that only an Approval has: they count approvals and declines. */
export const APPROVAL_RULES: DecideBy[] = ['approvals', 'firstDecline'];

export interface DecisionRule {
	decideBy: Exclude<DecideBy, 'first'>;
	/** How many subscribers are asked. */
	asked: number;
	/** Whether the question is an Approval: its decision is approved or not. */
	approval: boolean;
	/** `approvals` only: how many approvals approve. */
	approvalsNeeded?: number;
}

/** One subscriber's confirmed answer, as the node puts it out. */
export interface RecordedAnswer {
	/** The index of the subscriber asked. */
	subscriber: number;
	/** The answer's fields as a single answer puts them out (answer, approved, comment or fields). */
	data: IDataObject;
	respondedAt: string;
}

/** Undecided, or decided: for an Approval, approved or not; for the other types, with every answer in. */
export type Decision = { decided: false } | { decided: true; approved?: boolean };

export function decide(rule: DecisionRule, answers: RecordedAnswer[]): Decision {
	const approvals = answers.filter((answer) => answer.data.approved === true).length;
	const declines = answers.filter((answer) => answer.data.approved === false).length;
	const everyone = answers.length >= rule.asked;
	switch (rule.decideBy) {
		case 'all':
			if (!everyone) return { decided: false };
			return rule.approval ? { decided: true, approved: declines === 0 } : { decided: true };
		case 'firstDecline':
			if (declines > 0) return { decided: true, approved: false };
			return everyone ? { decided: true, approved: true } : { decided: false };
		case 'approvals': {
			const needed = rule.approvalsNeeded ?? rule.asked;
			if (approvals >= needed) return { decided: true, approved: true };
			// Too many declined: the approvals needed can no longer come in.
			if (declines > rule.asked - needed) return { decided: true, approved: false };
			return { decided: false };
		}
	}
}

/** The rule of "Decide By" for the subscribers asked, or undefined for the first answer. */
export function decisionRuleOf(this: IExecuteFunctions, responseType: string, asked: number): DecisionRule | undefined {
	const decideBy = this.getNodeParameter('decideBy', 0, DECIDE_BY_FIRST) as string;
	if (!(DECIDE_BY as string[]).includes(decideBy)) {
		throw new NodeOperationError(
			this.getNode(),
			`The field "Decide By" must be one of ${DECIDE_BY.join(', ')}, not "${decideBy}"`,
		);
	}
	if (decideBy === DECIDE_BY_FIRST) return undefined;
	const approval = responseType === 'approval';
	if (!approval && (APPROVAL_RULES as string[]).includes(decideBy)) {
		throw new NodeOperationError(
			this.getNode(),
			`"Decide By" ${decideBy} counts approvals: it needs the Approval response type`,
			{
				description: 'Pick All Answers or First Answer, or ask for an Approval.',
			},
		);
	}
	const rule: DecisionRule = { decideBy: decideBy as DecisionRule['decideBy'], asked, approval };
	if (decideBy === 'approvals') {
		const needed = this.getNodeParameter('approvalsNeeded', 0, 1) as number;
		if (!Number.isInteger(needed) || needed < 1 || needed > asked) {
			throw new NodeOperationError(
				this.getNode(),
				`The field "Approvals Needed" must be a whole number from 1 to ${asked} (the subscribers asked), not ${String(needed)}`,
				{ description: 'Nothing was sent.' },
			);
		}
		rule.approvalsNeeded = needed;
	}
	return rule;
}
