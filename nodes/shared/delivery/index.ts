/**
 * The verification core of the delivery contract: the one implementation that the receiver package and the n8n
 * trigger node both compile. No runtime dependency; the cryptography comes from a platform adapter.
 */
export * from './bytes';
export * from './delivery';
export * from './errors';
export * from './eventKinds';
export * from './events';
export * from './headers';
export * from './jwt';
export * from './keys';
export * from './platform';
export * from './standardWebhooks';
