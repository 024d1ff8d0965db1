package io.jofi.spi.util.stats;

import java.lang.management.ManagementFactory;
import java.util.List;
import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.DynamicMBean;
import javax.management.JMException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.ReflectionException;

/**
 * A {@link CounterGroup} as a read-only JMX MBean on the platform MBean server,
 * {@code io.jofi:type=<Type>,provider=<provider>,name=<object>}: one {@code long} attribute
 * per counter, read from the same counters {@code jofi stat} reads. Registered while the
 * group lives; JMX is optional: a server that refuses leaves the counters as they are.
 */
final class CounterGroupMBean implements DynamicMBean {
    private final CounterGroup group;
    private final ObjectName name;

    private CounterGroupMBean(CounterGroup group, ObjectName name) {
        this.group = group;
        this.name = name;
    }

    /** Registers {@code group}; null when JMX is off or refuses. */
    static CounterGroupMBean register(CounterGroup group, int typeId) {
        if (!StatsSettings.jmxEnabled()) {
            return null;
        }
        try {
            String owner = group.owner();
            int slash = owner.indexOf('/');
            String provider = slash < 0 ? owner : owner.substring(0, slash);
            String object = slash < 0 ? owner : owner.substring(slash + 1);
            ObjectName name = new ObjectName("io.jofi:type=" + typeName(typeId) + ",provider=" + value(provider)
                    + ",name=" + value(object));
            CounterGroupMBean bean = new CounterGroupMBean(group, name);
            ManagementFactory.getPlatformMBeanServer().registerMBean(bean, name);
            return bean;
        } catch (JMException | RuntimeException | LinkageError e) {
            return null; // JMX is a view: its absence never fails the object
        }
    }

    /** Takes the MBean off the server. */
    void unregister() {
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            if (server.isRegistered(name)) {
                server.unregisterMBean(name);
            }
        } catch (JMException | RuntimeException e) {
            // gone already
        }
    }

    /** The JMX {@code type} key of a {@code StatsFileDescriptor.TYPE_*}. */
    static String typeName(int typeId) {
        return switch (typeId) {
            case StatsFileDescriptor.TYPE_PROVIDER -> "Provider";
            case StatsFileDescriptor.TYPE_ENDPOINT -> "Endpoint";
            case StatsFileDescriptor.TYPE_RECEIVE_QUEUE -> "ReceiveQueue";
            case StatsFileDescriptor.TYPE_COMPLETION_QUEUE -> "CompletionQueue";
            case StatsFileDescriptor.TYPE_EVENT_QUEUE -> "EventQueue";
            default -> "Counters";
        };
    }

    private static String value(String v) {
        for (char c : v.toCharArray()) {
            if (",=:\"*?\n".indexOf(c) >= 0) {
                return ObjectName.quote(v);
            }
        }
        return v;
    }

    private String attributeOf(StatsCounter c) {
        String prefix = group.owner() + ": ";
        return c.label().startsWith(prefix) ? c.label().substring(prefix.length()) : c.label();
    }

    @Override
    public Object getAttribute(String attribute) throws AttributeNotFoundException {
        for (StatsCounter c : group.counters()) {
            if (attributeOf(c).equals(attribute)) {
                return c.get();
            }
        }
        throw new AttributeNotFoundException(attribute);
    }

    @Override
    public void setAttribute(Attribute attribute) throws AttributeNotFoundException {
        throw new AttributeNotFoundException(attribute.getName() + " is read-only");
    }

    @Override
    public AttributeList getAttributes(String[] attributes) {
        AttributeList list = new AttributeList();
        for (String a : attributes) {
            try {
                list.add(new Attribute(a, getAttribute(a)));
            } catch (AttributeNotFoundException e) {
                // left out, as JMX asks
            }
        }
        return list;
    }

    @Override
    public AttributeList setAttributes(AttributeList attributes) {
        return new AttributeList();
    }

    @Override
    public Object invoke(String actionName, Object[] params, String[] signature) throws ReflectionException {
        // DynamicMBean's answer for an operation it does not have (its MBeanInfo lists none)
        throw new ReflectionException(new NoSuchMethodException(actionName),
                "no operation " + actionName + ": counters are read-only");
    }

    @Override
    public MBeanInfo getMBeanInfo() {
        List<StatsCounter> counters = group.counters();
        MBeanAttributeInfo[] attributes = new MBeanAttributeInfo[counters.size()];
        for (int i = 0; i < attributes.length; i++) {
            StatsCounter c = counters.get(i);
            attributes[i] = new MBeanAttributeInfo(attributeOf(c), "long", c.label(), true, false, false);
        }
        return new MBeanInfo(CounterGroupMBean.class.getName(), "JOFI counters of " + group.owner(), attributes,
                null, null, null);
    }
}
