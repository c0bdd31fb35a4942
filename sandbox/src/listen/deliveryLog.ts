import { ListenError, type SandboxClient } from './sandboxClient';

/** An attempt as /hook/deliveries records it. */
export interface AttemptRecord {
	n: number;
	at: string;
	status: number | null;
	error: string | null;
}

/** A delivery as /hook/deliveries records it (newest first). */
export interface DeliveryRecord {
	id: string;
	status: 'pending' | 'delivered' | 'failed' | 'cancelled';
	event: { id: string; type: string };
	attempts: AttemptRecord[];
}

const PAGE = 100;

/** One line per attempt: when, which event, what the receiver answered, which attempt. */
export function attemptLine(delivery: DeliveryRecord, attempt: AttemptRecord): string {
	const answer = attempt.status === null ? 'no answer' : String(attempt.status);
	const line = `${attempt.at}  ${delivery.event.id}  ${delivery.event.type}  ${answer}  attempt ${attempt.n}`;
	return attempt.error && attempt.status === null ? `${line}  (${attempt.error})` : line;
}

/**
 * Follows one hook's delivery history and reports each attempt once, oldest first. The history is read from the
 * newest record back until a page holds nothing that can still change: finished deliveries already reported.
 */
export class DeliveryLog {
	/** Attempts reported per delivery id. */
	private readonly reported = new Map<string, number>();
	private readonly finished = new Set<string>();

	constructor(
		private readonly client: SandboxClient,
		private readonly hookId: string,
		private readonly print: (line: string) => void,
	) {}

	/** Counts what the history holds now as reported: a reused hook's earlier deliveries are not printed again. */
	async skipExisting(): Promise<void> {
		for (const delivery of await this.changedDeliveries()) this.remember(delivery);
	}

	/** Prints the attempts made since the last call. */
	async report(): Promise<void> {
		const changed = await this.changedDeliveries();
		for (const delivery of changed.reverse()) {
			const seen = this.reported.get(delivery.id) ?? 0;
			for (const attempt of delivery.attempts.slice(seen)) this.print(attemptLine(delivery, attempt));
			this.remember(delivery);
		}
	}

	private remember(delivery: DeliveryRecord): void {
		this.reported.set(delivery.id, delivery.attempts.length);
		if (delivery.status !== 'pending') this.finished.add(delivery.id);
	}

	private isSettled(delivery: DeliveryRecord): boolean {
		return this.finished.has(delivery.id) && this.reported.get(delivery.id) === delivery.attempts.length;
	}

	/** Deliveries, newest first, that have attempts not yet reported. */
	private async changedDeliveries(): Promise<DeliveryRecord[]> {
		// By id: a delivery made between two pages moves the older ones down, so one may come twice.
		const changed = new Map<string, DeliveryRecord>();
		for (let offset = 0; ; offset += PAGE) {
			const page = await this.client.api<{ items: DeliveryRecord[] }>('/hook/deliveries', {
				hook: this.hookId,
				limit: PAGE,
				offset,
			});
			if (!Array.isArray(page.items)) throw new ListenError('/hook/deliveries answered without "items"');
			for (const delivery of page.items) if (!this.isSettled(delivery)) changed.set(delivery.id, delivery);
			if (page.items.length < PAGE || page.items.every((delivery) => this.isSettled(delivery)))
				return [...changed.values()];
		}
	}
}
