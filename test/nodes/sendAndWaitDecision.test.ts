import { decide } from '../../nodes/MessengerBotBuilder/actions/message/sendAndWait/decision';
import type {
	DecisionRule,
	RecordedAnswer,
} from '../../nodes/MessengerBotBuilder/actions/message/sendAndWait/decision';

/** Answers of subscribers 0, 1, 2… in that order: true approves, false declines, a string is a Choice's answer. */
const answers = (...given: Array<boolean | string>): RecordedAnswer[] =>
	given.map((value, subscriber) => ({
		subscriber,
		data: typeof value === 'boolean' ? { answer: value ? 'Approve' : 'Decline', approved: value } : { answer: value },
		respondedAt: `2026-12-08T10:00:0${subscriber}.000Z`,
	}));

/** What each prefix of the answers decides: `open` while undecided, else approved or declined (or `in` for a Choice). */
function verdicts(rule: DecisionRule, given: Array<boolean | string>): string[] {
	return given.map((_, count) => {
		const decision = decide(rule, answers(...given.slice(0, count + 1)));
		if (!decision.decided) return 'open';
		return decision.approved === undefined ? 'in' : decision.approved ? 'approved' : 'declined';
	});
}

describe('Decide By: when several answers decide a question', () => {
	it('All Answers waits for everyone; an Approval is approved only when all approve', () => {
		const all = { decideBy: 'all', asked: 3, approval: true } as const;
		expect(verdicts(all, [true, true, true])).toEqual(['open', 'open', 'approved']);
		expect(verdicts(all, [false, true, true])).toEqual(['open', 'open', 'declined']);
		expect(verdicts({ decideBy: 'all', asked: 2, approval: false }, ['Red', 'Blue'])).toEqual(['open', 'in']);
	});

	it('First Decline declines at once and approves when all approved', () => {
		const rule = { decideBy: 'firstDecline', asked: 3, approval: true } as const;
		expect(verdicts(rule, [true, false])).toEqual(['open', 'declined']);
		expect(verdicts(rule, [false])).toEqual(['declined']);
		expect(verdicts(rule, [true, true, true])).toEqual(['open', 'open', 'approved']);
	});

	it('Approvals Needed approves at that many approvals and declines once they can no longer come in', () => {
		const twoOfThree = { decideBy: 'approvals', asked: 3, approval: true, approvalsNeeded: 2 } as const;
		expect(verdicts(twoOfThree, [true, false, true])).toEqual(['open', 'open', 'approved']);
		expect(verdicts(twoOfThree, [true, true])).toEqual(['open', 'approved']);
		expect(verdicts(twoOfThree, [false, true, false])).toEqual(['open', 'open', 'declined']);
		expect(verdicts(twoOfThree, [false, false])).toEqual(['open', 'declined']);
		const oneOfThree = { ...twoOfThree, approvalsNeeded: 1 };
		expect(verdicts(oneOfThree, [false, false, true])).toEqual(['open', 'open', 'approved']);
		expect(verdicts(oneOfThree, [false, false, false])).toEqual(['open', 'open', 'declined']);
		const threeOfThree = { ...twoOfThree, approvalsNeeded: 3 };
		expect(verdicts(threeOfThree, [true, false])).toEqual(['open', 'declined']);
	});
});
