import type { CSSProperties, ReactNode } from 'react';
import './skeleton.css';

interface SkeletonProps {
  width?: CSSProperties['width'];
  height?: CSSProperties['height'];
  /** Square blocks (e.g. a cover) keep their shape at any width. */
  aspectRatio?: CSSProperties['aspectRatio'];
  className?: string;
}

/** A grey placeholder block; purely visual, so hidden from assistive technology. */
export function Skeleton({ width, height = '1em', aspectRatio, className }: SkeletonProps) {
  const style: CSSProperties = aspectRatio ? { width, aspectRatio } : { width, height };
  return <span className={className ? `skeleton ${className}` : 'skeleton'} style={style} aria-hidden="true" />;
}

/** A few lines of placeholder text, the last one shorter. */
export function SkeletonText({ lines = 3 }: { lines?: number }) {
  return (
    <span className="skeleton-text" aria-hidden="true">
      {Array.from({ length: lines }, (_, index) => (
        <Skeleton key={index} width={index === lines - 1 && lines > 1 ? '60%' : '100%'} />
      ))}
    </span>
  );
}

/** `count` placeholder cards or list items alike (shop products, wallet totals, account sections…), each holding `children`. */
export function SkeletonCards({ count, className, as: Card = 'div', children }: { count: number; className: string; as?: 'div' | 'li'; children: ReactNode }) {
  return Array.from({ length: count }, (_, index) => (
    <Card key={index} className={className}>
      {children}
    </Card>
  ));
}

/** Wraps placeholders so screen readers hear one "Loading" message instead of nothing. */
export function LoadingRegion({ label = 'Loading…', children }: { label?: string; children: ReactNode }) {
  return (
    <div className="loading-region" role="status" aria-busy="true">
      <span className="visually-hidden">{label}</span>
      {children}
    </div>
  );
}
