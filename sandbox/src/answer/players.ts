/** Who opens the message's links: the subscriber, a link preview, or a scanner that presses everything. */
export const PLAYERS = ['subscriber', 'preview', 'scanner'] as const;
export type Player = (typeof PLAYERS)[number];

/** The longest a play may wait on a page: a test that wants a page left open for hours moves no real clock. */
export const MAX_PLAY_WAIT_MS = 10 * 60_000;
