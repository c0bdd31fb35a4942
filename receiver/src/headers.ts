export { MAX_SIGNATURE_HEADER_LENGTH, readHeaders, readNodeHeaders } from './core';
export type { HeaderReader, HeaderSource } from './core';
