/**
 * The verification core of the delivery contract. Its one source lives beside the n8n trigger node
 * (nodes/shared/delivery), because the n8n package must be self-contained; this package
 * compiles the same files into its dist. The platform adapters are imported from there directly: `nodeCrypto` by the
 * Node.js entry, `webCrypto` by the `/web` entry.
 */
export * from '../../nodes/shared/delivery';
