import type { Delivery } from './deliveries';

/**
 * Which held deliveries (chaos `reorder`) wait for which later delivery: a held one goes once the next delivery
 * queued for its hook has been attempted, so that one reaches the receiver first. Kept in memory only: after a
 * restart a held delivery goes when its longest hold ends.
 */
export class HeldDeliveries {
	/** Per hook: held deliveries that no later delivery has been queued after yet. */
	private readonly waiting = new Map<string, string[]>();
	/** Per delivery id: the held deliveries to send once it has been attempted. */
	private readonly after = new Map<string, string[]>();

	/** Notes a newly queued delivery: it releases the held ones before it, and waits itself when held. */
	queued(delivery: Delivery): void {
		const before = this.waiting.get(delivery.hookId);
		if (before) {
			this.after.set(delivery.id, before);
			this.waiting.delete(delivery.hookId);
		}
		if (delivery.plan?.hold) this.waiting.set(delivery.hookId, [delivery.id]);
	}

	/** The held deliveries that wait for `deliveryId`, forgotten once asked for. */
	releasedBy(deliveryId: string): string[] {
		const ids = this.after.get(deliveryId) ?? [];
		this.after.delete(deliveryId);
		return ids;
	}
}
