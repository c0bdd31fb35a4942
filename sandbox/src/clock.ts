/**
 * Business time of the sandbox. Tests move it forward (POST /sandbox/clock) to see keys and
 * catalog links expire without waiting; rate limiting and delivery retries use real time.
 */
export class Clock {
  private offsetMs = 0;

  now(): number {
    return Date.now() + this.offsetMs;
  }

  iso(): string {
    return new Date(this.now()).toISOString();
  }

  advance(seconds: number): void {
    this.offsetMs += seconds * 1000;
  }
}
