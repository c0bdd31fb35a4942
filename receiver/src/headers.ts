export { MAX_SIGNATURE_HEADER_LENGTH, readHeaders } from './core';
export type { HeaderReader, HeaderSource } from './core';
