import { randomUUID } from 'node:crypto';
import type { IDataObject, IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';
import { N8nDataTable } from '../../../../shared/n8nDataTable';
import type { TableRow, TableUse } from '../../../../shared/n8nDataTable';
import type { RecordedAnswer } from './decision';

/**
 * The answers of a question that more than one answer decides (Decide By), kept in an n8n data table until the
 * question is decided. n8n 2.41.1 keeps nothing an answer link's webhook changes unless the answer resumes the
 * execution (`WaitingWebhooks` runs the webhook of a waiting node and saves nothing when it returns no workflow data),
 * so an answer that does not decide yet is kept outside the execution, where every webhook process and a restart
 * see it. Append-only, like the trigger's claim log: every confirmation adds its row, then reads the question's rows;
 * a subscriber's first row is their answer. So two subscribers answering at once in two processes cannot both miss
 * the other: the later of the two reads sees both.
 */
const ANSWER_COLUMNS = ['question', 'subscriber', 'answer', 'respondedAt', 'tap'] as const;
type AnswerColumn = (typeof ANSWER_COLUMNS)[number];
export const ANSWER_TABLE_NAME = 'Messenger Bot Builder answers';
const SCOPES = 'dataTable:list, dataTable:create, dataTableRow:read and dataTableRow:create';

const ANSWERS: TableUse<AnswerColumn> = {
	name: ANSWER_TABLE_NAME,
	columns: ANSWER_COLUMNS,
	purpose: "Send and Wait's answers",
	consequence: 'The answer was not recorded; the question still waits.',
	scopes: SCOPES,
};

/** Found or created before the question is sent, so that a credential that cannot keep answers asks nothing. */
export async function prepareAnswerStore(context: IExecuteFunctions): Promise<void> {
	const table = await N8nDataTable.of(context, { ...ANSWERS, consequence: 'Nothing was sent.' });
	await table.id();
}

/** A row as an answer, or undefined for a row that is not one of this question's (changed by hand). */
function answerOf(row: TableRow<AnswerColumn>, asked: number): (RecordedAnswer & { tap: string }) | undefined {
	const subscriber = /^\d{1,3}$/.test(row.subscriber) ? Number(row.subscriber) : NaN;
	if (!(subscriber < asked)) return undefined;
	try {
		const data = JSON.parse(row.answer) as unknown;
		if (!data || typeof data !== 'object' || Array.isArray(data)) return undefined;
		return { subscriber, data: data as IDataObject, respondedAt: row.respondedAt, tap: row.tap };
	} catch {
		return undefined;
	}
}

/** Each subscriber's first answer to the question, by index, in the order the rows were added. */
async function firstAnswers(
	table: N8nDataTable<AnswerColumn>,
	question: { id: string; asked: number },
): Promise<Map<number, RecordedAnswer & { tap: string }>> {
	const first = new Map<number, RecordedAnswer & { tap: string }>();
	await table.scan({ question: question.id }, (row) => {
		const recorded = answerOf(row, question.asked);
		if (recorded && !first.has(recorded.subscriber)) first.set(recorded.subscriber, recorded);
		return false;
	});
	return first;
}

export interface RecordedAnswers {
	/** Each subscriber's first answer, in the order they came in. */
	answers: RecordedAnswer[];
	/** Whether this confirmation's row is its subscriber's first: false when they had answered before. */
	counted: boolean;
	/** The answer of this subscriber that counts (theirs from before, when not `counted`). */
	theirs: RecordedAnswer;
}

/** Adds a subscriber's confirmed answer to the question's rows and reads them all back. */
export async function recordAnswer(
	context: IWebhookFunctions,
	question: { id: string; asked: number },
	answer: RecordedAnswer,
): Promise<RecordedAnswers> {
	const table = await N8nDataTable.of(context, ANSWERS);
	const tap = randomUUID();
	await table.insert({
		question: question.id,
		subscriber: String(answer.subscriber),
		answer: JSON.stringify(answer.data),
		respondedAt: answer.respondedAt,
		tap,
	});
	const first = await firstAnswers(table, question);
	const theirs = first.get(answer.subscriber);
	if (!theirs) {
		throw table.error(
			'The answer was not found in the data table of answers',
			`The data table "${ANSWER_TABLE_NAME}" did not return the answer just added: was it changed or emptied by hand?`,
		);
	}
	const withoutTap = ({ subscriber, data, respondedAt }: RecordedAnswer): RecordedAnswer => ({
		subscriber,
		data,
		respondedAt,
	});
	return { answers: [...first.values()].map(withoutTap), counted: theirs.tap === tap, theirs: withoutTap(theirs) };
}

/** The indices of the subscribers who have answered the question so far (a reminder skips them). */
export async function answeredSubscribers(
	context: IExecuteFunctions,
	question: { id: string; asked: number },
): Promise<Set<number>> {
	const table = await N8nDataTable.of(context, { ...ANSWERS, consequence: 'No reminder was sent.' });
	return new Set((await firstAnswers(table, question)).keys());
}
