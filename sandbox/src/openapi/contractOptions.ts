import type { VariantOptions } from '../config';

/** How the sandbox was started, as far as its contract depends on it (the variant flags). */
export type ContractOptions = VariantOptions;
