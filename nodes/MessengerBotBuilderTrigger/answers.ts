import type { IDataObject } from 'n8n-workflow';

/**
 * The trigger's answer to each delivery, the same from every n8n process (README: "The trigger's answers"). Only the
 * status code matters to the sender (2xx: delivered, do not retry); the body tells a person reading the service's
 * delivery log what became of the event.
 * - accepted (200): verified and handed to the workflow. A repeat that reaches an n8n process that did not see the
 *   event first is also answered "accepted": its execution then finds the event in n8n's shared store and starts nothing.
 * - duplicate (200): this process already accepted the event; nothing starts.
 * - ignored (200): verified, but the trigger's settings pass it by (kind not selected, another bot).
 * - refused (401, 400, 413, …): not verified; nothing starts, and the sender retries or gives up.
 */
export type DeliveryAnswer =
	| { status: 'accepted' | 'duplicate'; event: string }
	| { status: 'ignored'; event: string; reason: string }
	| { status: 'refused'; code: string; error: string };

const body = (answer: DeliveryAnswer): IDataObject => answer;

export const accepted = (event: string): IDataObject => body({ status: 'accepted', event });
export const duplicate = (event: string): IDataObject => body({ status: 'duplicate', event });
export const ignored = (event: string, reason: string): IDataObject => body({ status: 'ignored', event, reason });
export const refused = (code: string, error: string): IDataObject => body({ status: 'refused', code, error });
