import type { EventKind } from '@messenger-bot-builder/receiver';
import type { EventListener, EventSink } from './api/endpoint';

/** Fans domain events out to listeners; a failing listener does not stop the others or the request. */
export class EventBus implements EventSink {
	private readonly listeners: EventListener[] = [];

	listen(listener: EventListener): void {
		this.listeners.push(listener);
	}

	emit(type: EventKind, data: Record<string, unknown>): void {
		for (const listener of this.listeners) {
			try {
				listener(type, data);
			} catch (error) {
				console.error(`sandbox: listener for ${type} failed`, error);
			}
		}
	}
}
