/**
 * The `.catch` of a clean-up step (release a lock, roll back, close a connection) that may
 * fail while the real outcome is already decided, often because the connection is gone:
 * it says at warn what could not be cleaned up and why, and goes on. Never swallow silently.
 */
export function warnCleanup(what: string): (error: unknown) => void {
  return (error) => {
    console.warn(`Clean-up failed, continuing: ${what}:`, error);
  };
}
