import type { IDataObject } from 'n8n-workflow';
import type { ApiContext } from '../../transport/request';
import { apiRequest } from '../../transport/request';
import { recordsOf } from './params';

/** The first of `fields` that the record fills, as text ('' when none). */
export const recordLabel = (record: IDataObject, ...fields: string[]): string =>
	String(
		fields.map((field) => record[field]).find((value) => value !== undefined && value !== null && value !== '') ?? '',
	);

/** A bot record's BotID, whatever the service calls the field. */
export const botIdOf = (bot: IDataObject): string => recordLabel(bot, 'id', 'botid', 'BotID');

/** The bots of the key (`/bot/list`), one record each. */
export async function listBots(this: ApiContext): Promise<IDataObject[]> {
	return recordsOf(await apiRequest.call(this, { method: 'POST', path: '/bot/list', readOnly: true }), 'bots');
}
