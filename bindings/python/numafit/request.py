"""numafit.Request: an instance's NUMA request (nova's numa_get_constraints)."""
import json
from ctypes import byref, c_int, c_int64, c_void_p

from . import _ffi, errors

PROFILES = {"latest": 0, "zed": 1}
REQUEST_ZED = 1
# NUMAFIT_PAGESIZE_NONE, _SMALL, _LARGE, _ANY: nova's hw:mem_page_size words
PAGE_SIZES = {0: None, -1: "small", -2: "large", -3: "any"}


# enum numafit_resources_flags
RESOURCES_ZED, RESOURCES_BOOT_FROM_VOLUME, RESOURCES_LEGACY = 1, 2, 4
# enum numafit_resources_result
RESOURCES_FALLBACK, RESOURCES_SMT_REQUIRED, RESOURCES_SMT_FORBIDDEN = 1, 2, 4
RESOURCE_CLASSES = ("VCPU", "PCPU", "MEMORY_MB", "DISK_GB")


def profile_number(profile):
    try:
        return PROFILES[profile]
    except KeyError:
        raise ValueError("numafit: unknown profile %r (latest, zed)" % (profile,)) from None


def _read_form(func, doc, what):
    text = doc if isinstance(doc, (str, bytes)) else json.dumps(doc)
    b, n = _ffi.cbuf(text, what)
    out, form, err = c_void_p(), c_int(), _ffi.Error()
    func(b, n, 0, byref(out), byref(form), byref(err))
    return (json.loads(_ffi.take_string(out)),
            _ffi.input_form_to_string(form.value).decode())


def read_flavor(flavor):
    """A flavor as an operator has it (dict or JSON text): numafit's own
    {"vcpus","memory_mb","extra_specs"}, `openstack flavor show -f json`
    (properties a dict or openstackclient's text "k='v', ..."), or nova's
    API flavor with or without its {"flavor": ...} envelope.  Returns
    (numafit's flavor dict, the name of the form read), for
    Request.from_json().  A misplaced or unknown key of numafit's form
    ("properties", "hw:..." at the top level) and a text form that cannot be
    read raise numafit.errors.InvalidArgument (a ValueError) naming the field
    (`where`)."""
    return _read_form(_ffi.flavor_normalize, flavor, "flavor")


def read_image(image):
    """An image as an operator has it: numafit's {"properties": {...}},
    `openstack image show -f json` or glance's image JSON (properties at
    the top level).  Returns (numafit's image dict, the form's name); hw_*
    keys at the top level of a document that is not a glance image raise
    numafit.errors.InvalidArgument."""
    return _read_form(_ffi.image_normalize, image, "image")


class Request(_ffi.Owned):
    """Built from a flavor and image properties as nova's
    numa_get_constraints() builds an InstanceNUMATopology; nova's refusals
    raise numafit.errors.<nova's exception name> (ValueErrors).

    A request may have no NUMA topology (nova's None): `has_numa` is False
    and fitting it is not meaningful.
    """
    _free = "request_free"

    def __init__(self, handle, has_numa, flavor, image, profile):
        self._h = handle
        self.has_numa = has_numa
        self.flavor = flavor
        self.image = image
        self.profile = profile

    @classmethod
    def from_flavor(cls, vcpus, memory_mb, extra_specs=None, image_properties=None,
                    profile="latest"):
        flavor = {"vcpus": vcpus, "memory_mb": memory_mb,
                  "extra_specs": dict(extra_specs or {})}
        image = {"properties": dict(image_properties or {})}
        return cls.from_json(flavor, image, profile)

    @classmethod
    def from_json(cls, flavor, image=None, profile="latest"):
        """flavor: {"vcpus","memory_mb","extra_specs"} (dict or text); image:
        {"properties": {...}} (dict or text) or None."""
        ftxt = flavor if isinstance(flavor, (str, bytes)) else json.dumps(flavor)
        itxt = None if image is None else (
            image if isinstance(image, (str, bytes)) else json.dumps(image))
        fb, fn = _ffi.cbuf(ftxt, "flavor")
        ib, inn = _ffi.cbuf(itxt, "image", none=True)
        r, err = _ffi.RequestP(), _ffi.Error()
        rc = _ffi.request_new(fb, fn, ib, inn,
                              REQUEST_ZED if profile_number(profile) == 1 else 0,
                              byref(r), byref(err))
        return cls(r, rc == 1, json.loads(ftxt),
                   None if itxt is None else json.loads(itxt), profile)

    def __copy__(self):
        r = _ffi.RequestP()
        with _ffi.hold(self) as (h,):
            _ffi.request_dup(h, byref(r))
        return type(self)(r, self.has_numa, self.flavor, self.image, self.profile)

    def __getstate__(self):
        return {"flavor": self.flavor, "image": self.image, "profile": self.profile}

    def __setstate__(self, st):
        other = Request.from_json(st["flavor"], st["image"], st["profile"])
        self.has_numa, self.flavor, self.image, self.profile = (
            other.has_numa, other.flavor, other.image, other.profile)
        self._adopt(other)

    def to_json(self, flags=0):
        """nova's InstanceNUMATopology primitive of the request (text)."""
        flags = _ffi.cint(flags, "flags")
        with _ffi.hold(self) as (h,):
            return _ffi.call_str(_ffi.request_to_json, h, flags)

    def to_dict(self):
        return json.loads(self.to_json())

    def __len__(self):
        with _ffi.hold(self) as (h,):
            return _ffi.request_get_cell_count(h)

    @property
    def vcpus(self):
        with _ffi.hold(self) as (h,):
            return _ffi.request_get_vcpus(h)

    @property
    def page_size(self):
        """The page size asked (hw:mem_page_size, refined by the image's
        hw_mem_page_size): None (nothing asked), "small", "large", "any",
        or a size in KiB (int)."""
        kib = c_int64()
        with _ffi.hold(self) as (h,):
            _ffi.request_get_page_size(h, 0, byref(kib))
        return kib.value if kib.value > 0 else PAGE_SIZES[kib.value]

    def _policy(self, get, to_string):
        with _ffi.hold(self) as (h,):
            s = to_string(get(h))  # static strings: no lock needed to read them
        return s.decode() if s else None

    @property
    def cpu_policy(self):
        return self._policy(_ffi.request_get_cpu_policy, _ffi.cpu_policy_to_string)

    @property
    def thread_policy(self):
        return self._policy(_ffi.request_get_thread_policy, _ffi.thread_policy_to_string)

    @property
    def emulator_threads_policy(self):
        return self._policy(_ffi.request_get_emulator_threads_policy,
                            _ffi.emulator_threads_policy_to_string)

    def __repr__(self):
        try:
            with _ffi.hold(self) as (h,):
                n, vcpus = _ffi.request_get_cell_count(h), _ffi.request_get_vcpus(h)
            return "<numafit.Request cells=%d vcpus=%d policy=%s>" % (n, vcpus, self.cpu_policy)
        except errors.ClosedError:
            return "<numafit.Request closed>"


class Resources(dict):
    """What a flavor and image ask of placement: {class: amount} for VCPU,
    PCPU, MEMORY_MB and DISK_GB, the classes asked for only (as nova's
    ResourceRequest.merged_resources() after strip_zeros()).
    `legacy_fallback` is True when nova's scheduler would ask again with
    legacy=True if placement found no host (a dedicated guest whose
    hw:cpu_policy became PCPU); `smt_required` / `smt_forbidden`: the
    query requires / forbids the host trait HW_CPU_HYPERTHREADING; `bits`
    is the library's answer (enum numafit_resources_result), for
    node_fit()."""
    legacy_fallback = smt_required = smt_forbidden = False
    bits = 0


def resources_from_flavor(flavor, image=None, profile="latest", boot_from_volume=False,
                          legacy=False):
    """nova's resources_from_request_spec for the classes of the NUMA model
    (numafit_resources_from_flavor): flavor {"vcpus", "memory_mb",
    "root_gb", "ephemeral_gb", "swap", "extra_specs"} and image
    {"properties": {...}} as dicts or JSON text.  boot_from_volume: the
    root disk takes no DISK_GB; legacy: nova's second query for hosts
    that still pin with vcpu_pin_set (hw:cpu_policy not translated to
    PCPU).  nova's refusals raise numafit.errors.<exception> as
    Request.from_json does; an amount above placement's 2147483647 raises
    numafit.errors.RangeError."""
    ftxt = flavor if isinstance(flavor, (str, bytes)) else json.dumps(flavor)
    itxt = None if image is None else (
        image if isinstance(image, (str, bytes)) else json.dumps(image))
    fb, fn = _ffi.cbuf(ftxt, "flavor")
    ib, inn = _ffi.cbuf(itxt, "image", none=True)
    flags = (RESOURCES_ZED if profile_number(profile) == 1 else 0) | \
        (RESOURCES_BOOT_FROM_VOLUME if boot_from_volume else 0) | \
        (RESOURCES_LEGACY if legacy else 0)
    amounts = (c_int64 * len(RESOURCE_CLASSES))()
    rc = _ffi.resources_from_flavor(fb, fn, ib, inn, flags, amounts, len(amounts),
                                    byref(_ffi.Error()))
    out = Resources((name, amounts[i]) for i, name in enumerate(RESOURCE_CLASSES) if amounts[i])
    out.bits = rc
    out.legacy_fallback = bool(rc & RESOURCES_FALLBACK)
    out.smt_required = bool(rc & RESOURCES_SMT_REQUIRED)
    out.smt_forbidden = bool(rc & RESOURCES_SMT_FORBIDDEN)
    return out


def validate_extra_specs(specs, profile="latest", allow=None):
    """Check a flavor's extra specs as nova's API does when they are set
    (microversion 2.86 and later; doc/extra-specs.md): `specs` is the
    extra specs dict (or a flavor dict with "extra_specs", or its JSON
    text). A key nova knows must have a value of its type, a key in one of
    nova's namespaces must be one nova knows; keys without a namespace or
    in another one pass. `profile` "latest" (upstream nova's keys) or "zed"
    (Debian's nova 26.2.2); `allow`: namespaces ("hw") and keys
    ("hw:my_key") to leave unchecked. Raises numafit.errors.ValidationError
    with nova's message (its `where` is "extra_specs/KEY")."""
    if profile not in ("latest", "zed"):
        raise ValueError("numafit: profile must be 'latest' or 'zed', not %r" % (profile,))
    text = specs if isinstance(specs, (str, bytes)) else json.dumps(specs)
    b, n = _ffi.cbuf(text, "extra specs")
    if allow is not None and not isinstance(allow, str):
        allow = ",".join(allow)
    err = _ffi.Error()
    _ffi.extra_specs_validate(b, n, 1 if profile == "zed" else 0,
                              _ffi.cstr(allow, "allow", none=True), _ffi.byref(err))
