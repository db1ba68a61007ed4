export function SignupPage() {
  return (
    <section className="page">
      <h1>Sign up</h1>
      <p>Creating an account will be available here.</p>
    </section>
  );
}
