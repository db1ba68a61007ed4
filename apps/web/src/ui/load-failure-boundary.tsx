import { Component, type ReactNode } from 'react';
import { ErrorState } from './error-state.tsx';

interface Props {
  /** What failed to load, as the error's heading. */
  title: string;
  headingLevel?: 1 | 2;
  /** Starts the load again (the boundary then shows its children again). */
  onRetry: () => void;
  children: ReactNode;
}

/** Shows a Retry in place of lazily loaded code that failed to arrive (a page or a part of one). */
export class LoadFailureBoundary extends Component<Props, { failed: boolean }> {
  override state = { failed: false };

  // React itself reports the caught error to the console, so nothing is logged here.
  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }

  retry = () => {
    this.props.onRetry();
    this.setState({ failed: false });
  };

  override render() {
    if (!this.state.failed) return this.props.children;
    return <ErrorState headingLevel={this.props.headingLevel} title={this.props.title} message="Check your connection and try again." onRetry={this.retry} />;
  }
}
