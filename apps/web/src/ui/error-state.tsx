import './error-state.css';

interface ErrorStateProps {
  title?: string;
  message?: string;
  onRetry?: () => void;
  /** 1 when the error replaces a whole page (it then carries the page's only heading). */
  headingLevel?: 1 | 2;
}

/** A failure the visitor can do something about: what went wrong, and a Retry button. */
export function ErrorState({ title = 'Something went wrong.', message, onRetry, headingLevel = 2 }: ErrorStateProps) {
  const Heading = headingLevel === 1 ? 'h1' : 'h2';
  return (
    <div className="error-state" role="alert">
      <Heading className="error-state__title">{title}</Heading>
      {message ? <p className="error-state__message">{message}</p> : null}
      {onRetry ? (
        <button type="button" className="button" onClick={onRetry}>
          Retry
        </button>
      ) : null}
    </div>
  );
}
