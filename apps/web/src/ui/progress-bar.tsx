import './progress-bar.css';

interface ProgressBarProps {
  /** Percent done, 0 to 100. */
  value: number;
  /** What is progressing, read by screen readers (e.g. "Uploading cover.jpg"). */
  label: string;
}

export function ProgressBar({ value, label }: ProgressBarProps) {
  const percent = Number.isFinite(value) ? Math.min(100, Math.max(0, Math.round(value))) : 0;
  return (
    <div className="progress-bar" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent}>
      <div className="progress-bar__fill" style={{ width: `${percent}%` }} />
    </div>
  );
}
